// The web face and files dragged onto the page. A browser's default for a
// file or folder dropped on a page is to open it in place of the page: the
// app would be gone. guardDrops cancels that for every drag that carries
// files and reports what was dropped by name, the one thing a browser lets a
// page know of a dropped folder (never its path on disk). Text dragged within
// the page (into the prompt) is left alone. The desktop window takes folder
// drops natively (GTK, desktop_gtk.go) and WebKit sees none; this guard is
// there all the same, should a drop ever reach the page.

/** droppedName is the name of the first file or folder in dt, else the last part of its first file:// URI ("" = none). */
export function droppedName(dt: DataTransfer): string {
  const first = dt.files?.[0]
  if (first) return first.name
  for (const item of Array.from(dt.items ?? [])) {
    const f = item.kind === 'file' ? item.getAsFile() : null
    if (f) return f.name
  }
  const uri = dt
    .getData('text/uri-list')
    .split(/\r?\n/)
    .find((l) => l.trim() && !l.startsWith('#'))
  if (!uri?.startsWith('file:')) return ''
  try {
    return decodeURIComponent(new URL(uri.trim()).pathname.replace(/\/+$/, '').split('/').pop() ?? '')
  } catch {
    return ''
  }
}

function isTextField(t: EventTarget | null): boolean {
  return t instanceof HTMLTextAreaElement || (t instanceof HTMLInputElement && t.type === 'text') || (t instanceof HTMLElement && t.isContentEditable)
}

/**
 * fromOutside: a drag the browser would open in place of the page: files (a
 * browser's view of a file manager's drag) or a URI list (WebKitGTK's view of
 * a GTK file manager's: text/uri-list, no "Files"). A URI list over a text
 * field is typed into it, so that is left alone, and so is any other text.
 */
function fromOutside(e: DragEvent): boolean {
  const types = Array.from(e.dataTransfer?.types ?? [])
  return types.includes('Files') || (types.includes('text/uri-list') && !isTextField(e.target))
}

/** guardDrops keeps drops from outside the page from navigating away; onDrop gets the dropped name. Returns the clean-up. */
export function guardDrops(target: Window, onDrop: (name: string) => void): () => void {
  const over = (e: DragEvent) => {
    if (!fromOutside(e)) return
    e.preventDefault() // this page takes the drop: the browser does not open the file
    e.dataTransfer!.dropEffect = 'copy'
  }
  const drop = (e: DragEvent) => {
    if (!fromOutside(e)) return
    e.preventDefault()
    const name = droppedName(e.dataTransfer!)
    if (name) onDrop(name)
  }
  target.addEventListener('dragover', over)
  target.addEventListener('drop', drop)
  return () => {
    target.removeEventListener('dragover', over)
    target.removeEventListener('drop', drop)
  }
}
