import { errorWords } from '../../api'
import type { ExportFormat } from '../../api'
import { useExports, useStores } from '../../stores'
import { codeFormats, exportFormats, exportTarget } from '../../stores/exports'
import { strings } from '../../strings'

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
  /**
   * False when the run (or no run of the session) produced final code, e.g.
   * a rejected key or a workspace run that changed nothing: the script and
   * notebook are then shown disabled, saying why.
   */
  hasCode?: boolean
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
 * the browser each entry is a download link that is fetched first, so a
 * refusal is shown here; on the desktop it opens the save dialog and says
 * where the file went. Formats that need code are disabled without it.
 */
export function ExportMenu({ sessionId, runId, formats = exportFormats, workspace = false, language, hasCode = true }: Props) {
  const stores = useStores()
  const e = strings.exports
  const download = useExports((x) => x.download)
  const saving = useExports((x) => x.saving)
  const mine = useExports((x) => x.target === exportTarget(sessionId, runId))
  const savedPath = useExports((x) => x.savedPath)
  const error = useExports((x) => x.error)
  const x = stores.exports.getState()
  const fetchFirst = stores.api.fetchExport != null
  const offered = workspace ? formats.filter((f) => f !== 'ipynb') : formats
  const closeMenu = (el: HTMLElement) => (el.closest('details') as HTMLDetailsElement | null)?.removeAttribute('open')
  return (
    <div className="export">
      <details className="export-menu" data-testid="export-menu" data-workspace={workspace || undefined}>
        <summary className="btn btn-small">{saving ? e.saving : e.label} ▾</summary>
        <ul className="export-list" role="menu">
          {offered.map((f) => (
            <li key={f} role="none">
              {!hasCode && codeFormats.includes(f) ? (
                <span role="menuitem" aria-disabled="true" className="export-item export-item-disabled" title={e.noCode} data-testid={`export-${f}`}>
                  {exportLabel(f, workspace, language)}
                </span>
              ) : download ? (
                <a
                  role="menuitem"
                  className="export-item"
                  href={x.url(sessionId, f, runId)}
                  download
                  onClick={(ev) => {
                    if (!fetchFirst) return // a plain download
                    ev.preventDefault()
                    closeMenu(ev.currentTarget)
                    void x.fetchAndSave(sessionId, f, runId)
                  }}
                  data-testid={`export-${f}`}
                >
                  {exportLabel(f, workspace, language)}
                </a>
              ) : (
                <button
                  type="button"
                  role="menuitem"
                  className="export-item"
                  disabled={saving}
                  onClick={(ev) => {
                    closeMenu(ev.currentTarget)
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
      {mine && !download && savedPath != null && (
        <span className="muted small export-result" role="status" data-testid="export-saved">
          {savedPath ? e.saved(savedPath) : e.cancelled}
        </span>
      )}
      {mine && error && (
        <span className="notice notice-error small" role="alert" data-testid="export-error">
          <strong>{e.failed}:</strong> {errorWords(error)}
        </span>
      )}
    </div>
  )
}
