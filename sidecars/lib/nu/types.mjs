// @rebuno/nu-types has types only (sidecars/nu-types/index.d.ts): a value import of it in a
// Nu extension gets this module, which has nothing to give.
export {};
