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
  /**
   * The run (or the session's runs) worked in a project: the result is a git
   * patch. py then downloads a .patch, and there is no notebook (the server
   * refuses one).
   */
  workspace?: boolean
  /** The run's language (python, sh, javascript): names its script. */
  language?: string
}

/** exportLabel names one entry of the menu; a workspace run's script is its patch. */
export function exportLabel(f: ExportFormat, workspace: boolean, language?: string): string {
  const e = strings.exports
  if (workspace && f === 'py') return e.patch
  if (f === 'py' && language === 'sh') return e.scriptSh
  if (f === 'py' && (language === 'javascript' || language === 'node')) return e.scriptJs
  if (workspace && f === 'zip') return e.zipPatches
  return e.formats[f]
}

/**
 * ExportMenu: the final script (a workspace run's patch), a zip of every
 * script, a handout, a notebook (not for a patch) or the whole session. In
 * the browser each entry is a download link; on the desktop it opens the
 * save dialog and says where the file went.
 */
export function ExportMenu({ sessionId, runId, formats = exportFormats, workspace = false, language }: Props) {
  const stores = useStores()
  const e = strings.exports
  const download = useExports((x) => x.download)
  const saving = useExports((x) => x.saving)
  const savedPath = useExports((x) => x.savedPath)
  const error = useExports((x) => x.error)
  const x = stores.exports.getState()
  const offered = workspace ? formats.filter((f) => f !== 'ipynb') : formats
  return (
    <div className="export">
      <details className="export-menu" data-testid="export-menu" data-workspace={workspace || undefined}>
        <summary className="btn btn-small">{saving ? e.saving : e.label} ▾</summary>
        <ul className="export-list" role="menu">
          {offered.map((f) => (
            <li key={f} role="none">
              {download ? (
                <a role="menuitem" className="export-item" href={x.url(sessionId, f, runId)} download data-testid={`export-${f}`}>
                  {exportLabel(f, workspace, language)}
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
                  {exportLabel(f, workspace, language)}
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
