// The web face and files dragged onto the page. A browser's default for a
// file or folder dropped on a page is to open it in place of the page: the
// app would be gone. guardDrops cancels that for every drag that carries
// files and reports what was dropped by name, the one thing a browser lets a
// page know of a dropped folder (never its path on disk). Text dragged within
// the page (into the prompt) is left alone. The desktop window needs none of
// this: Wails takes the drop natively and sets the folder (app.go).

/** droppedName is the name of the first file or folder in dt ("" = none). */
export function droppedName(dt: DataTransfer): string {
  const first = dt.files?.[0]
  if (first) return first.name
  for (const item of Array.from(dt.items ?? [])) {
    const f = item.kind === 'file' ? item.getAsFile() : null
    if (f) return f.name
  }
  return ''
}

function carriesFiles(e: DragEvent): boolean {
  return e.dataTransfer != null && Array.from(e.dataTransfer.types).includes('Files')
}

/** guardDrops keeps file drops on target from navigating away; onDrop gets the dropped name. Returns the clean-up. */
export function guardDrops(target: Window, onDrop: (name: string) => void): () => void {
  const over = (e: DragEvent) => {
    if (!carriesFiles(e)) return
    e.preventDefault() // this page takes the drop: the browser does not open the file
    e.dataTransfer!.dropEffect = 'copy'
  }
  const drop = (e: DragEvent) => {
    if (!carriesFiles(e)) return
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
