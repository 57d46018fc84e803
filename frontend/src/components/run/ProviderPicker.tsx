import { useState } from 'react'
import { errorWords } from '../../api'
import { when } from '../../format'
import { useComposer, useProviders } from '../../stores'
import type { KeyRejection } from '../../api/gen/wire'
import { errorText, strings } from '../../strings'
import { hasModelList, ModelList } from './ModelList'

interface Props {
  /** The chosen profiles: one → a run, several → a comparison. */
  value: string[]
  onToggle(name: string, on: boolean): void
  /** Offer each API provider's models list, to see it and pick a model (not for a student, who may not choose). */
  models?: boolean
}

/**
 * ProviderPicker lists every profile: ready ones can be ticked (several to
 * compare), the others say why not. A ready one whose key was just rejected
 * keeps its box (the user may retry) but gets an amber dot and the reason.
 */
export function ProviderPicker({ value, onToggle, models = false }: Props) {
  const s = strings.run
  const providers = useProviders((p) => p.providers)
  const loading = useProviders((p) => p.loading)
  const loaded = useProviders((p) => p.loaded)
  const error = useProviders((p) => p.error)
  const load = useProviders((p) => p.load)
  const ready = providers.filter((p) => p.available)
  const notReady = providers.filter((p) => !p.available)
  const anyReady = ready.length > 0
  const picked = useComposer((c) => c.models)
  // The one provider whose models list is open ("" = none).
  const [open, setOpen] = useState('')
  const pickedInComparison = value.length > 1 && value.some((n) => picked[n])

  return (
    <fieldset className="providers" data-testid="providers">
      <legend>{s.providers}</legend>
      {error && (
        <div className="notice notice-error" role="alert">
          <strong>{s.providersError}:</strong> {errorWords(error)}{' '}
          <button type="button" className="btn btn-small" onClick={() => void load()}>
            {s.retry}
          </button>
        </div>
      )}
      {loading && !loaded && !error && <p className="muted pulse">{s.providersLoading}</p>}
      {loaded && providers.length === 0 && <p className="notice notice-warn">{s.noProviders}</p>}
      {loaded && providers.length > 0 && !anyReady && (
        <p className="notice notice-warn" role="alert">
          {s.noReadyProvider}{' '}
          <button type="button" className="btn btn-small" onClick={() => void load()}>
            {s.retry}
          </button>
        </p>
      )}
      <ul className="provider-list">
        {ready.map((p) => {
          const rejected = p.key_rejected ? rejectionText(p.key_rejected, s, when) : null
          return (
            <li key={p.name} className="provider" data-testid={`provider-${p.name}`} data-state={rejected ? 'key-rejected' : 'ready'}>
              <div className="provider-line">
                <label title={rejected ?? undefined}>
                  <input type="checkbox" name="provider" value={p.name} checked={value.includes(p.name)} onChange={(e) => onToggle(p.name, e.target.checked)} />
                  <span className={rejected ? 'dot dot-warn' : 'dot dot-ok'} aria-hidden="true" data-testid={`provider-dot-${p.name}`} />
                  <span className="provider-name">{p.name}</span>
                  <span className="provider-model" data-testid={`provider-model-${p.name}`}>
                    {models && picked[p.name] ? picked[p.name] : p.model}
                  </span>
                  {models && picked[p.name] && (
                    <span className="tag" title={s.modelPickedTitle(p.model)}>
                      {s.modelPicked}
                    </span>
                  )}
                  {p.default && <span className="tag">{s.isDefault}</span>}
                </label>
                {models && hasModelList(p) && (
                  <button
                    type="button"
                    className="btn btn-small btn-ghost models-toggle"
                    aria-expanded={open === p.name}
                    title={s.modelsTitle(p.name)}
                    onClick={() => setOpen(open === p.name ? '' : p.name)}
                  >
                    {s.models}
                  </button>
                )}
              </div>
              {models && open === p.name && <ModelList provider={p} />}
              {rejected && (
                <p className="provider-reason" role="status" data-testid={`provider-rejected-${p.name}`}>
                  {rejected}
                </p>
              )}
            </li>
          )
        })}
      </ul>
      {ready.length > 1 && <p className="muted small compare-hint">{s.compareHint}</p>}
      {models && pickedInComparison && (
        <p className="muted small" role="note" data-testid="model-alone">
          {s.modelAlone}
        </p>
      )}
      {notReady.length > 0 && (
        <details className="not-ready" open={!anyReady} data-testid="providers-not-ready">
          <summary>{s.notReadyCount(notReady.length)}</summary>
          <ul className="provider-list">
            {notReady.map((p) => (
              <li key={p.name} className="provider provider-off" data-testid={`provider-${p.name}`}>
                <div className="provider-row">
                  <span className="dot dot-off" aria-hidden="true" />
                  <span className="provider-name">{p.name}</span>
                  <span className="provider-model">{p.model}</span>
                  {p.default && <span className="tag">{s.isDefault}</span>}
                </div>
                <p className="provider-reason">{p.reason ? errorText(p.reason_code, p.reason_params, p.reason) : s.notReady}</p>
              </li>
            ))}
          </ul>
        </details>
      )}
    </fieldset>
  )
}

/**
 * rejectionText words a key rejection in the UI's language from its code
 * and parameters (the provider's own words quoted); a backend that sent no
 * code gets its English text.
 */
function rejectionText(k: KeyRejection, s: typeof strings.run, at: (iso: string) => string): string {
  if (k.code === 'provider.auth') return s.keyRejectedCoded(at(k.at), k.params ?? {})
  return s.keyRejected(at(k.at), k.message)
}
