// Skills and prompt templates Pi extensions return from `resources_discover` (at session start,
// as Pi's extendResourcesFromExtensions): loaded with pi's own loaders (relative paths from the
// workspace, as in Pi), kept for the session, and told to the host in a registration update —
// skills as `skills`, each prompt template as a command that expands it with pi's own argument
// rules and starts a turn with the result (the reply's `prompt`), as typing `/name args` does
// in Pi. An extension command of the same name keeps it (Pi checks extension commands first).

import { sendRegistrationDelta } from "../registration.mjs";
import { currentRequest } from "../state.mjs";
import { log } from "../stdio.mjs";
import { piUrl } from "./modules.mjs";

const load = (name) => import(piUrl(name));

function byPackage(found, kind) {
	const groups = new Map();
	for (const { kind: k, path: where, item } of found) {
		if (k !== kind) continue;
		if (!groups.has(item.packageId)) groups.set(item.packageId, []);
		groups.get(item.packageId).push(where); // relative: to the workspace, as in Pi
	}
	return groups;
}

async function addSkills(pi, found, cwd) {
	const groups = byPackage(found, "skillPaths");
	if (!groups.size) return false;
	const [{ loadSkills }, { getAgentDir }] = await Promise.all([load("core/skills.js"), load("config.js")]);
	let added = false;
	for (const [packageId, paths] of groups) {
		const { skills, diagnostics } = loadSkills({ cwd, agentDir: getAgentDir(), skillPaths: paths, includeDefaults: false });
		for (const note of diagnostics) log(`resources_discover skill ${note.path ?? ""}: ${note.message}`);
		for (const skill of skills) {
			if (pi.skills.some((known) => known.path === skill.filePath)) continue;
			pi.skills.push({ name: skill.name, description: skill.description ?? "", path: skill.filePath, package: packageId });
			added = true;
		}
	}
	return added;
}

async function addPrompts(state, pi, found, cwd) {
	const groups = byPackage(found, "promptPaths");
	if (!groups.size) return false;
	const [{ loadPromptTemplates, parseCommandArgs, substituteArgs }, { getAgentDir }] = await Promise.all([
		load("core/prompt-templates.js"),
		load("config.js"),
	]);
	let added = false;
	for (const [packageId, paths] of groups) {
		const { templates, diagnostics } = loadPromptTemplates({ cwd, agentDir: getAgentDir(), promptPaths: paths, includeDefaults: false });
		for (const note of diagnostics) log(`resources_discover prompt ${note.path ?? ""}: ${note.message}`);
		for (const template of templates) {
			if (pi.commands.has(template.name)) {
				log(`prompt template /${template.name} (${template.filePath}): a command of that name exists; it keeps the name`);
				continue;
			}
			const handler = async (args) => {
				const current = currentRequest(state);
				if (current) current.prompt = substituteArgs(template.content, parseCommandArgs(String(args ?? "")));
			};
			const command = { name: template.name, description: template.description ?? "", handler, sourceInfo: template.sourceInfo };
			pi.commands.set(template.name, { command, packageId, source: "prompt" });
			added = true;
		}
	}
	return added;
}

/** Load what the handlers returned ({kind: skillPaths | promptPaths, path, item}) and tell the
 * host when anything is new. Relative paths are taken from the extension's folder. */
export async function addDiscovered(state, pi, found, cwd) {
	const skills = await addSkills(pi, found, cwd);
	const prompts = await addPrompts(state, pi, found, cwd);
	if (skills || prompts) sendRegistrationDelta(state);
}
