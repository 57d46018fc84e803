import { useEffect, useState } from 'react'
import { errorWords, shownError, type ShownError } from '../../api'
import type { ProviderModels, ProviderStatus } from '../../api/gen/wire'
import { useComposer, useStores } from '../../stores'
import { strings } from '../../strings'

/** The kinds whose API has a models list (backend provider.ModelLister). */
const listedKinds = new Set(['openai', 'anthropic', 'gemini-api'])

/** hasModelList reports whether a profile's kind can list its models. */
export function hasModelList(p: ProviderStatus): boolean {
  return listedKinds.has(p.kind)
}

type Listing = { state: 'loading' } | { state: 'error'; error: ShownError } | { state: 'done'; models: ProviderModels['models'] }

/**
 * ModelList asks a provider's API which models its key can use (GET
 * /api/providers/{name}/models) when it opens, and lets the user pick one
 * for that provider's runs, or go back to the profile's model. The list is
 * asked again each time it opens: a key's models change without loopforge.
 */
export function ModelList({ provider }: { provider: ProviderStatus }) {
  const s = strings.run
  const api = useStores().api
  const picked = useComposer((c) => c.models[provider.name])
  const pickModel = useComposer((c) => c.pickModel)
  // The answer for one provider: another provider's (or none yet) reads as loading, so a new
  // listing starts without a reset in the effect.
  const [answer, setAnswer] = useState<{ name: string; listing: Listing } | null>(null)
  const listing: Listing = answer?.name === provider.name ? answer.listing : { state: 'loading' }
  const [filter, setFilter] = useState('')

  useEffect(() => {
    let live = true
    const name = provider.name
    api
      .call('ProviderModels', { name })
      .then((r) => live && setAnswer({ name, listing: { state: 'done', models: r.models ?? [] } }))
      .catch((err: unknown) => live && setAnswer({ name, listing: { state: 'error', error: shownError(err) } }))
    return () => {
      live = false
    }
  }, [api, provider.name])

  const current = picked ?? provider.model
  const shown = listing.state === 'done' ? listing.models.filter((m) => matches(m, filter)) : []
  return (
    <div className="model-list" data-testid={`models-${provider.name}`}>
      {listing.state === 'loading' && <p className="muted small pulse">{s.modelsLoading(provider.name)}</p>}
      {listing.state === 'error' && (
        <p className="notice notice-error small" role="alert">
          {s.modelsError}: {errorWords(listing.error)}
        </p>
      )}
      {listing.state === 'done' && (
        <>
          <p className="muted small" role="status">
            {listing.models.length ? s.modelsCount(listing.models.length) : s.modelsNone}
          </p>
          {listing.models.length > 8 && (
            <input type="search" className="model-filter" aria-label={s.modelsFilter} placeholder={s.modelsFilter} value={filter} onChange={(e) => setFilter(e.target.value)} />
          )}
          {listing.models.length > 0 && shown.length === 0 && <p className="muted small">{s.modelsNoMatch}</p>}
          <ul className="model-options">
            {shown.map((m) => (
              <li key={m.id}>
                <button
                  type="button"
                  className="btn btn-small model-option"
                  aria-pressed={m.id === current}
                  title={s.modelUse(m.id)}
                  onClick={() => pickModel(provider.name, m.id === provider.model ? null : m.id)}
                >
                  <code>{m.id}</code>
                  {m.name && m.name !== m.id && <span className="muted small"> {m.name}</span>}
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
      {picked && (
        <button type="button" className="btn btn-small" onClick={() => pickModel(provider.name, null)}>
          {s.modelProfile(provider.model)}
        </button>
      )}
    </div>
  )
}

function matches(m: { id: string; name?: string }, filter: string): boolean {
  const f = filter.trim().toLowerCase()
  return !f || m.id.toLowerCase().includes(f) || (m.name ?? '').toLowerCase().includes(f)
}
