import { useState } from 'react'
import { errorWords } from '../../api'
import { useStores, useWorkdir } from '../../stores'
import { strings } from '../../strings'
import { FolderPicker } from './FolderPicker'

/** shortPath keeps the end of a long path, which names the folder. */
export function shortPath(p: string, max = 42): string {
  return p.length <= max ? p : `…${p.slice(p.length - max + 1)}`
}

/**
 * WorkdirControl shows the working directory. Web: a path typed here, or a
 * folder picked by browsing the server's folders, is checked by the server,
 * which says what is wrong with it. Desktop: the
 * native folder dialog, or a folder dropped anywhere on the window.
 */
export function WorkdirControl() {
  const stores = useStores()
  const w = strings.workdir
  const path = useWorkdir((s) => s.path)
  const saving = useWorkdir((s) => s.saving)
  const error = useWorkdir((s) => s.error)
  const canChoose = useWorkdir((s) => s.canChoose)
  const canBrowse = useWorkdir((s) => s.canBrowse)
  const picking = useWorkdir((s) => s.picker != null)
  const dropped = useWorkdir((s) => s.dropped)
  const [editing, setEditing] = useState(false)
  const [typed, setTyped] = useState('')

  const startEdit = () => {
    setTyped(path)
    stores.workdir.getState().clearError()
    setEditing(true)
  }

  return (
    <div className="workdir" data-testid="workdir">
      <span className="workdir-label">{w.label}</span>
      {!editing && (
        <>
          <code className={`workdir-path${path ? '' : ' muted'}`} title={path} data-testid="workdir-path">
            {path ? shortPath(path) : w.none}
          </code>
          {canChoose ? (
            <>
              <button type="button" className="btn btn-ghost btn-small" onClick={() => void stores.workdir.getState().choose()} disabled={saving}>
                {saving ? w.saving : w.choose}
              </button>
              <span className="workdir-hint muted">{w.dropHint}</span>
            </>
          ) : (
            <>
              <button type="button" className="btn btn-ghost btn-small" onClick={startEdit} data-testid="workdir-change">
                {w.change}
              </button>
              {canBrowse && (
                <button
                  type="button"
                  className="btn btn-ghost btn-small"
                  onClick={() => void stores.workdir.getState().openPicker()}
                  title={w.browseTitle}
                  aria-haspopup="dialog"
                  aria-expanded={picking}
                  data-testid="workdir-browse"
                >
                  {w.browse}
                </button>
              )}
            </>
          )}
        </>
      )}
      {editing && (
        <form
          className="workdir-form"
          onSubmit={async (e) => {
            e.preventDefault()
            if (await stores.workdir.getState().set(typed)) setEditing(false)
          }}
        >
          <input
            type="text"
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            placeholder={w.placeholder}
            aria-label={w.label}
            title={w.webHint}
            autoFocus
            spellCheck={false}
            data-testid="workdir-input"
            onKeyDown={(e) => e.key === 'Escape' && setEditing(false)}
          />
          <button type="submit" className="btn btn-small btn-primary" disabled={saving || !typed.trim()}>
            {saving ? w.saving : w.set}
          </button>
          <button type="button" className="btn btn-small" onClick={() => setEditing(false)}>
            {w.cancel}
          </button>
        </form>
      )}
      {picking && <FolderPicker />}
      {dropped != null && (
        <div className="drop-note notice" role="status" data-testid="drop-note">
          <p>{canBrowse ? w.dropped(dropped) : w.droppedNoBrowse(dropped)}</p>
          <div className="drop-note-actions">
            {canBrowse && (
              <button type="button" className="btn btn-small btn-primary" onClick={() => void stores.workdir.getState().openPicker()} data-testid="drop-browse">
                {w.browse}
              </button>
            )}
            <button type="button" className="btn btn-small" onClick={() => stores.workdir.getState().clearDrop()} data-testid="drop-dismiss">
              {w.dismiss}
            </button>
          </div>
        </div>
      )}
      {error && (
        <span className="workdir-error" role="alert" data-testid="workdir-error">
          {errorWords(error)}
        </span>
      )}
    </div>
  )
}
