// Starting what the run form describes: one run, or a comparison when several providers are
// chosen. It spans four stores (composer, providers, workdir, and runs or compare), so it lives
// here, read at the moment of the click, rather than in a component that would have to subscribe
// to all of them (a component reads at most two stores: eslint.config.js).

import type { ProviderStatus } from '../api/gen/wire'
import { utf8Length } from '../format'
import { strings } from '../strings'
import type { Stores } from '.'
import { defaultProvider } from './providers'

/** A student's run: the class decides the model, and an assignment's tests replace the student's. */
export interface LaunchAs {
  student?: { assignedTests?: boolean }
}

/** What a click on Run did: refused with a hint, failed to start, or started (the run's or comparison's id). */
export type Launched = { hint: string } | { failed: true } | { id: string }

/**
 * chosenProviders: the ticked providers that are ready, else the configured default.
 * ticked is the ready subset of the ticks (the picker keeps a tick next to the implicit default).
 */
export function chosenProviders(ticks: string[], list: ProviderStatus[], configured?: string | null): { ticked: string[]; chosen: string[] } {
  const ticked = ticks.filter((n) => list.some((p) => p.name === n && p.available))
  const fallback = defaultProvider(list, configured)
  return { ticked, chosen: ticked.length ? ticked : fallback ? [fallback] : [] }
}

/**
 * launchInputs: what a refusal hint is about (the prompt, the chosen providers, the mode, the
 * folder), as one string: the hint goes once any of it changes.
 */
export function launchInputs(prompt: string, chosen: string[], mode: string, workdir: string): string {
  return JSON.stringify([prompt, chosen, mode, workdir])
}

/** launchProblem: why Run is refused before anything is sent, or null. */
function launchProblem(stores: Stores, chosen: string[], as: LaunchAs): string | null {
  const s = strings.run
  const { prompt, mode } = stores.composer.getState()
  // The API's prompt limit (absent from an older server: no check here).
  const max = stores.providers.getState().defaults?.max_prompt_bytes ?? 0
  if (!prompt.trim()) return s.needPrompt
  // Refused here, with the count, rather than after sending it all.
  if (max > 0 && utf8Length(prompt) > max) return s.promptTooLong(utf8Length(prompt), [...prompt].length, max)
  if (!chosen.length) return s.needProvider
  if (mode === 'workspace' && !stores.workdir.getState().path && !as.student) return s.needWorkdir
  return null
}

/** launch starts the run (or the comparison) the form describes, as the stores hold it now. */
export async function launch(stores: Stores, as: LaunchAs = {}): Promise<Launched & { inputs: string }> {
  const composer = stores.composer.getState()
  const providers = stores.providers.getState()
  const workdir = stores.workdir.getState().path
  const { chosen } = chosenProviders(composer.providers, providers.providers, providers.defaults?.provider)
  const inputs = launchInputs(composer.prompt, chosen, composer.mode, workdir)
  const hint = launchProblem(stores, chosen, as)
  if (hint) return { hint, inputs }
  // The folder shown is the one the run edits (a re-run of a comparison column too).
  const where = composer.mode === 'workspace' && !as.student ? { workdir } : {}
  let id: string | null
  if (chosen.length > 1) {
    id = await stores.compare.getState().start({ ...composer.compareRequest(chosen), ...where })
  } else {
    stores.compare.getState().close()
    const req = composer.request(chosen[0])
    // A student may not choose the model (the class's server refuses it).
    if (as.student) delete req.model
    // The server puts the assignment's tests on the run; the student's own would be refused.
    if (as.student?.assignedTests) delete req.tests
    id = await stores.runs.getState().start({ ...req, ...where })
  }
  if (!id) return { failed: true, inputs }
  // The network opt-in was for this run only.
  stores.composer.getState().startedRun()
  return { id, inputs }
}

/** stopShown stops what the run area shows: the comparison's runs, or the active run. */
export function stopShown(stores: Stores): void {
  if (stores.compare.getState().sessionId != null) void stores.compare.getState().cancelAll()
  else {
    const id = stores.runs.getState().activeRunId
    if (id) void stores.runs.getState().cancel(id)
  }
}
