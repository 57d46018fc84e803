import { bytes, integer } from '../format'
import { classEn } from './class'
import { testsEn } from './tests'
import { said, modelsNamed, type P } from './words'

/**
 * The error words in English (errors.pt.ts has the same keys in Portuguese).
 * Errors by their stable code (backend/service/errclass.go, loop.Format*):
 * the backend sends the code, its parameters and English text; the text
 * shown is chosen here, and an unknown code shows the backend's text.
 */
export const errorsEn: Record<string, (p: P) => string> = {
  ...classEn.errors,
  ...testsEn.errors,
  internal: (p: P) => `Something went wrong in loopforge: ${p.detail}`,
  'request.invalid': (p: P) => `Invalid request: ${p.detail}`,
  'request.prompt_empty': () => 'The prompt is empty.',
  'request.prompt_too_long': (p: P) =>
    `The prompt is too long: ${integer(Number(p.bytes))} bytes (${integer(Number(p.chars))} characters); a run takes at most ${bytes(Number(p.max))} (${integer(Number(p.max))} bytes).`,
  'request.too_large': (p: P) => `The request is larger than ${bytes(Number(p.max))}, the most loopforge accepts.`,
  'request.max_iterations': (p: P) => `The iteration limit must be between 1 and ${p.max} (got ${p.n}).`,
  'request.timeout': (p: P) => `The time limit must be positive and at most ${p.max} (got ${p.value}).`,
  'request.language': (p: P) => `Unsupported language “${p.language}”: use Python, Shell or JavaScript (Node.js).`,
  'request.mode': (p: P) => `Unknown mode “${p.mode}”: script or workspace.`,
  'request.needs_workspace': () => 'A task, validation commands and an auditor need workspace mode.',
  'request.compare_too_few': (p: P) => `A comparison needs at least two providers (got ${p.n}).`,
  'request.compare_twice': (p: P) => `Provider ${p.provider} is listed twice.`,
  'request.compare_rerun': () => 'A provider of a workspace comparison cannot be re-run in that session: start a new comparison.',
  'request.compare_session': () => 'That session is not a comparison: continue it with one provider.',
  'request.retry_running': () => 'That run is still going: it can be tried again once it ends.',
  'request.retry_workspace': () => 'A run in workspace mode cannot be tried again from where it stopped: start the task again.',
  'request.settings': (p: P) => `Unusable run settings: ${p.detail}`,
  'request.bad_input': (p: P) => `The request could not be read: ${p.detail}`,
  'request.no_endpoint': (p: P) => `No such API endpoint: ${p.method} ${p.path}`,
  'request.token': () => 'Missing or wrong access token: open the URL that loopforge serve printed.',
  'request.origin': () => 'Cross-origin request refused.',
  'config.invalid': (p: P) => `Configuration problem: ${p.detail}`,
  'provider.unknown': (p: P) => `Unknown provider “${p.provider}”.`,
  not_found: () => 'That session or run does not exist (any more).',
  'not_found.run': () => 'That run does not exist (any more).',
  'workdir.empty': () => 'The folder path is empty.',
  'workdir.missing': (p: P) => `${p.path} does not exist.`,
  'workdir.not_folder': (p: P) => `${p.path} is a file, not a folder.`,
  'workdir.unreadable': (p: P) => `Cannot open ${p.path}: ${p.detail}`,
  'workspace.no_workdir': () => 'Workspace mode needs a project folder.',
  'workspace.cannot_edit': (p: P) => `Provider ${p.provider} (${p.kind}) cannot edit files: it has neither its own file tools nor tool calling.`,
  'workspace.not_repo': (p: P) => `The project folder is not a usable git repository: ${p.detail}`,
  'workspace.no_commit': (p: P) => `The repository in ${p.dir} has no commit yet: commit once so loopforge can branch from it.`,
  'workspace.dirty': (p: P) => `The project folder ${p.dir} has uncommitted changes (${p.changes}): commit or stash them first, so loopforge's edits stay apart from yours.`,
  'workspace.tampered': (p: P) => `The repository's git control files changed while ${p.actor || 'the run'} was working (${p.files}): loopforge will not run git on ${p.dir}; inspect them first.`,
  'workspace.branch_moved': (p: P) => `HEAD moved off the run's branch ${p.branch} (it is now on ${p.head || 'a detached HEAD'}): loopforge will not commit there; check out ${p.branch} in ${p.dir} and inspect the changes first.`,
  'export.format': (p: P) => `Unknown export format “${p.format}”.`,
  'export.lang': (p: P) => `Unknown export language “${p.lang}”.`,
  'export.tz': (p: P) => `Unknown time zone “${p.tz}” for the export's dates.`,
  'export.no_code': () => 'This run produced no code to export; the handout and the JSON still show what happened.',
  'export.not_runnable': () => 'The run’s result is a patch, not a program: export it as a .patch, a handout, a zip or JSON.',
  'sandbox.unavailable': (p: P) => `Generated code cannot run on this machine (loopforge doctor says why): ${p.detail}`,
  'provider.missing_key': (p: P) => `${p.provider}: no API key. Set ${p.env} in the environment or in a .env file.`,
  'provider.missing_env': (p: P) => `${p.provider}: the CLI needs the environment variable ${p.env}.`,
  'provider.cli_not_found': (p: P) => `${p.provider}: the CLI “${p.binary}” is not installed.${p.hint ? ` ${p.hint}` : ''}`,
  'provider.cli_failed': (p: P) => `${p.provider}: the CLI failed (exit code ${p.exit})${p.message ? `: ${p.message}` : '.'}`,
  'provider.cli_output': (p: P) => `${p.provider}: the CLI printed something that is not one of its events (line ${p.line}).`,
  'provider.timeout': (p: P) =>
    p.limit ? `${p.provider}: no complete answer within ${p.limit}. To wait longer, raise ${p.key} in the “${p.provider}” profile of loopforge.yml.` : `${p.provider}: the call timed out.`,
  'provider.auth': (p: P) => `${p.provider}: the API key was rejected${p.status ? ` (HTTP ${p.status})` : ''}${p.env ? `; check ${p.env}` : ''}.${said(p)}`,
  'provider.forbidden': (p: P) =>
    `${p.provider}: the key is valid but may not use ${p.model ? `model ${p.model}` : 'this model'} (or not from this region): enable the model for it, or pick another.${said(p)}`,
  'provider.rate_limit': (p: P) =>
    `${p.provider}: too many requests${p.attempts ? ` (tried ${p.attempts} times)` : ''}${p.retry_after ? `; the server asks to wait ${p.retry_after}` : ''}.${said(p)}`,
  'provider.server': (p: P) => `${p.provider}: the provider's server failed${p.status ? ` (HTTP ${p.status})` : ''}${p.attempts ? ` ${p.attempts} times` : ''}.${said(p)}`,
  'provider.bad_request': (p: P) => `${p.provider}: the request was rejected${p.status ? ` (HTTP ${p.status})` : ''}.${said(p)}`,
  'provider.unreachable': (p: P) => `${p.provider}: cannot reach ${p.url}.${said(p)}`,
  'provider.protocol': (p: P) => `${p.provider}: the answer did not follow the provider's format.${said(p)}`,
  'provider.error': (p: P) => `${p.provider}: the call failed.${said(p)}`,
  'provider.refused': (p: P) => `${p.provider}: the model refused to answer${p.category ? ` (${p.category})` : ''}.${said(p)}`,
  'provider.interrupted': (p: P) =>
    `${p.provider}: the connection${p.url ? ` to ${p.url}` : ''} broke off in the middle of the answer${Number(p.received) > 0 ? ` (after ${p.received} characters)` : ''}: the model's server stopped or the network dropped. Trying the iteration again may work.${said(p)}`,
  'provider.token_cap': (p: P) =>
    p.unsupported
      ? `${p.provider}: the server does not accept the field ${p.field} for the answer's token limit: set max_tokens_field: ${p.other} in the “${p.provider}” profile of loopforge.yml.${said(p)}`
      : `${p.provider}: the server refused the answer's token limit (${p.field}: ${p.value}): lower max_output_tokens${p.other ? `, or set max_tokens_field: ${p.other} if it wants that field,` : ''} in the “${p.provider}” profile of loopforge.yml.${said(p)}`,
  'provider.model_not_found': (p: P) =>
    `${p.provider}: the model ${p.model || 'asked for'} does not exist or is no longer offered to this key${p.status ? ` (HTTP ${p.status})` : ''}. ` +
    (p.listed
      ? p.models
        ? `Models this key can use: ${modelsNamed(p.models, (n) => `… and ${n} more`)}. `
        : 'This key can use no models. '
      : 'The models this key can use could not be listed just now (see Models beside the provider, or run loopforge providers --models). ') +
    `Pick another with Models beside the provider, or set model: in the “${p.provider}” profile of loopforge.yml.${said(p)}`,
  'provider.no_model_list': (p: P) => `${p.provider}: a coding CLI has no models list to ask; its own documentation names its models.`,
  'run.cancelled': () => 'Stopped by the user.',
  'run.shutdown': () => 'loopforge was shutting down.',
  'history.corrupt': (p: P) =>
    `${p.damage === 'not_a_database' ? `The history file ${p.path} is not a loopforge history.` : p.damage === 'empty' ? `The history file ${p.path} is empty, although a history was kept there.` : `The history file ${p.path} is damaged${p.detail ? ` (${p.detail})` : ''}.`} It was left as it is. ` +
    (p.backup
      ? `The newest backup is ${p.backup}: to go back to it, move ${p.path} aside and copy the backup in its place. `
      : 'There is no backup of it. ') +
    `To start a fresh history, move ${p.path} (and any ${p.path}-wal beside it) to another folder, then start loopforge again.`,
  'history.disk_full': (p: P) =>
    `The disk holding the history (folder ${p.dir}) is full: free some space there.`,
  'format.empty': () => 'The answer was empty.',
  'format.invalid_json': (p: P) => `The answer was not valid JSON (${p.detail}).`,
  'format.empty_field': () => 'The JSON answer had an empty “code” field.',
  'format.unclosed': () => 'The code block was opened but never closed (was the answer cut off?).',
  'format.other_block': (p: P) => `The answer had a code block marked ${p.found} but none marked ${p.fence}.`,
  'format.no_block': (p: P) => `The answer had no code block marked ${p.fence}.`,
  'format.empty_block': (p: P) => `The ${p.fence} code block was empty.`,
}
