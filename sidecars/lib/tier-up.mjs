// Loaded before the sidecar's entry (`node --import=<this module's URL> sidecar.mjs`,
// adapters/_node_flags.py): loads the built-in modules a sidecar's start loads, then raises
// V8's tier-up thresholds 125 times (TIER_UP_FLAGS there: a start runs no optimizing
// compiler on code that runs once, ~8 MB less resident memory per process).
//
// Why here and not on Node's command line: V8 accepts Node's code cache of its built-in
// modules only under the flags it was made with. With the thresholds on the command line,
// every built-in a start loads (~100: fs's streams, readline, net, crypto, assert, vm …)
// was compiled from its source in every process, ~15 ms of a small package's ~135 ms of
// CPU. Loaded first, they come from the code cache; the few loaded later (a package's own
// use of a built-in not listed here) compile from source, as all did before. The sidecar's
// own modules and the bundles are compiled after the thresholds change, in every process
// and in the run that fills the compile cache alike (adapters/_sidecar_prepare.py), so
// their compile cache matches.

import "node:assert";
import "node:crypto";
import "node:fs";
import "node:fs/promises";
import "node:module";
import "node:net";
import "node:os";
import "node:perf_hooks";
import "node:readline";
import "node:readline/promises";
import "node:stream";
import "node:stream/promises";
import "node:string_decoder";
import "node:tty";
import "node:vm";
import { setFlagsFromString } from "node:v8";

/** As adapters/_node_flags.py's TIER_UP_FLAGS (tests/sidecars keeps them equal). */
export const TIER_UP_FLAGS = ["--invocation-count-for-maglev=50000", "--invocation-count-for-turbofan=500000"];

void globalThis.navigator; // a lazy global the hosts' modules read
for (const flag of TIER_UP_FLAGS) setFlagsFromString(flag);
