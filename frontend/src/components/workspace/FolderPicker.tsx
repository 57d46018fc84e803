import { useEffect, useId, useRef, type KeyboardEvent } from 'react'
import { createPortal } from 'react-dom'
import { errorWords } from '../../api'
import { useStores, useWorkdir } from '../../stores'
import { strings } from '../../strings'
import { FolderIcon, UpIcon } from '../common/Icons'

/** crumbs splits an absolute POSIX path into its ancestors, "/" first; null for other paths. */
export function crumbs(path: string): Array<{ name: string; path: string }> | null {
  if (!path.startsWith('/')) return null
  const out = [{ name: '/', path: '/' }]
  let acc = ''
  for (const part of path.split('/').filter(Boolean)) {
    acc += `/${part}`
    out.push({ name: part, path: acc })
  }
  return out
}

const FOCUSABLE = 'button:not(:disabled), [href], input:not(:disabled), [tabindex]:not([tabindex="-1"])'

/**
 * FolderPicker (web face): a modal dialog over the server's folder listing.
 * Open a subfolder by clicking it, go up to the parent, then "Use this
 * folder" sets it as the workdir (the server validates it; its refusal shows
 * here). Escape, Cancel or a click outside closes it; focus stays inside
 * while it is open and returns to where it was afterwards.
 */
export function FolderPicker() {
  const stores = useStores()
  const w = strings.workdir
  const picker = useWorkdir((s) => s.picker)
  const dialog = useRef<HTMLDivElement>(null)
  const titleId = useId()
  const hintId = useId()
  const state = () => stores.workdir.getState()

  // Return focus to the opener on close.
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null
    return () => opener?.focus?.()
  }, [])

  // Escape closes from anywhere, even with focus outside the dialog.
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault()
        stores.workdir.getState().closePicker()
      }
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [stores])

  // Each new folder shown: focus its first subfolder (else "Use this folder"),
  // so the keyboard never falls out of the dialog when a button disappears.
  const shown = picker?.listing?.path
  useEffect(() => {
    const d = dialog.current
    if (!d) return
    const target = d.querySelector<HTMLElement>('[data-testid=folder-item]') ?? d.querySelector<HTMLElement>('[data-testid=folder-use]:not(:disabled)')
    ;(target ?? d).focus()
  }, [shown])

  if (!picker) return null
  const { listing, loading, saving, error } = picker
  const path = listing?.path ?? ''
  const parts = crumbs(path)
  const busy = loading || saving

  const trapTab = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key !== 'Tab' || !dialog.current) return
    const items = [...dialog.current.querySelectorAll<HTMLElement>(FOCUSABLE)]
    if (items.length === 0) return
    const first = items[0]
    const last = items[items.length - 1]
    if (e.shiftKey && (document.activeElement === first || document.activeElement === dialog.current)) {
      e.preventDefault()
      last.focus()
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault()
      first.focus()
    }
  }

  return createPortal(
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && state().closePicker()}>
      <div
        ref={dialog}
        className="modal folder-picker"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={hintId}
        tabIndex={-1}
        onKeyDown={trapTab}
        data-testid="folder-picker"
      >
        <h2 id={titleId} className="modal-title">
          {w.pickerTitle}
        </h2>
        <p id={hintId} className="muted modal-hint">
          {w.pickerHint}
        </p>
        <div className="picker-bar">
          <button
            type="button"
            className="btn btn-small"
            onClick={() => listing?.parent && void state().browse(listing.parent)}
            disabled={!listing?.parent || busy}
            title={w.upTitle}
            data-testid="folder-up"
          >
            <UpIcon /> {w.up}
          </button>
          <nav className="picker-crumbs" aria-label={w.location} data-testid="folder-path" data-path={path} title={path}>
            {parts ? (
              <ol>
                {parts.map((c, i) =>
                  i === parts.length - 1 ? (
                    <li key={c.path}>
                      <span aria-current="location" className="crumb-current">
                        {c.name}
                      </span>
                    </li>
                  ) : (
                    <li key={c.path}>
                      <button type="button" className="crumb" onClick={() => void state().browse(c.path)} disabled={busy}>
                        {c.name}
                      </button>
                    </li>
                  ),
                )}
              </ol>
            ) : (
              <code aria-current="location">{path || '…'}</code>
            )}
          </nav>
        </div>
        <div className="picker-list-wrap" aria-busy={loading}>
          {listing && listing.folders.length > 0 && (
            <ul className="picker-list" aria-label={w.subfolders} data-testid="folder-list">
              {listing.folders.map((f) => (
                <li key={f.path}>
                  <button type="button" className="picker-item" onClick={() => void state().browse(f.path)} disabled={busy} title={f.path} data-testid="folder-item">
                    <FolderIcon />
                    <span>{f.name}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
          {listing && listing.folders.length === 0 && !loading && <p className="muted picker-empty">{w.noSubfolders}</p>}
          {loading && (
            <p className="muted picker-loading" role="status">
              {w.loading}
            </p>
          )}
        </div>
        {error && (
          <p className="picker-error" role="alert" data-testid="folder-picker-error">
            {errorWords(error)}
          </p>
        )}
        <div className="modal-actions">
          <button type="button" className="btn btn-small" onClick={() => state().closePicker()} data-testid="folder-cancel">
            {w.cancel}
          </button>
          <button type="button" className="btn btn-small btn-primary" onClick={() => void state().pick()} disabled={!listing || busy} data-testid="folder-use">
            {saving ? w.saving : w.use}
          </button>
        </div>
      </div>
    </div>,
    document.body,
  )
}
