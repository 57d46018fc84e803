import type { ExportFormat } from '../api'
import { useExports, useStores } from '../stores'
import { exportFormats } from '../stores/exports'
import { strings } from '../strings'

interface Props {
  sessionId: string
  /** One run of the session; omitted = the whole session. */
  runId?: string
  /** Formats offered (default: all). */
  formats?: ExportFormat[]
}

/**
 * ExportMenu: the final script, a zip of every script, a handout, a notebook
 * or the whole session. In the browser each entry is a download link; on the
 * desktop it opens the save dialog and says where the file went.
 */
export function ExportMenu({ sessionId, runId, formats = exportFormats }: Props) {
  const stores = useStores()
  const e = strings.exports
  const download = useExports((x) => x.download)
  const saving = useExports((x) => x.saving)
  const savedPath = useExports((x) => x.savedPath)
  const error = useExports((x) => x.error)
  const x = stores.exports.getState()
  return (
    <div className="export">
      <details className="export-menu" data-testid="export-menu">
        <summary className="btn btn-small">{saving ? e.saving : e.label} ▾</summary>
        <ul className="export-list" role="menu">
          {formats.map((f) => (
            <li key={f} role="none">
              {download ? (
                <a role="menuitem" className="export-item" href={x.url(sessionId, f, runId)} download data-testid={`export-${f}`}>
                  {e.formats[f]}
                </a>
              ) : (
                <button
                  type="button"
                  role="menuitem"
                  className="export-item"
                  disabled={saving}
                  onClick={(ev) => {
                    ;(ev.currentTarget.closest('details') as HTMLDetailsElement | null)?.removeAttribute('open')
                    void x.save(sessionId, f, runId)
                  }}
                  data-testid={`export-${f}`}
                >
                  {e.formats[f]}
                </button>
              )}
            </li>
          ))}
        </ul>
      </details>
      {!download && savedPath != null && (
        <span className="muted small export-result" role="status" data-testid="export-saved">
          {savedPath ? e.saved(savedPath) : e.cancelled}
        </span>
      )}
      {!download && error && (
        <span className="notice notice-error small" role="alert">
          <strong>{e.failed}:</strong> {error}
        </span>
      )}
    </div>
  )
}
