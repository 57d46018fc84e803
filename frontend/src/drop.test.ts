// @vitest-environment happy-dom

import { describe, expect, it } from 'vitest'
import { droppedName, guardDrops } from './drop'

/** A DataTransfer as a page sees it: types, files, and getData for the URI list. */
function transfer(types: string[], opts: { files?: string[]; uriList?: string } = {}): DataTransfer {
  const files = (opts.files ?? []).map((name) => ({ name }))
  return {
    types,
    files: Object.assign(files, { item: (i: number) => files[i] }),
    items: [],
    getData: (t: string) => (t === 'text/uri-list' ? (opts.uriList ?? '') : ''),
    dropEffect: 'none',
  } as unknown as DataTransfer
}

/** Fires a cancelable drag event carrying dt at target; returns whether its default was cancelled. */
function fire(target: EventTarget, type: string, dt: DataTransfer): boolean {
  const e = new Event(type, { bubbles: true, cancelable: true })
  Object.defineProperty(e, 'dataTransfer', { value: dt })
  return !target.dispatchEvent(e)
}

describe('droppedName', () => {
  it('is the first file’s name, else the last part of a file:// URI', () => {
    expect(droppedName(transfer(['Files'], { files: ['aula-3'] }))).toBe('aula-3')
    expect(droppedName(transfer(['text/uri-list'], { uriList: '# from a file manager\r\nfile:///home/ana/aula%20de%20sexta%20%C3%A9/\r\n' }))).toBe('aula de sexta é')
    expect(droppedName(transfer(['text/uri-list'], { uriList: 'https://example.org/x' }))).toBe('')
    expect(droppedName(transfer(['text/plain']))).toBe('')
  })
})

describe('guardDrops', () => {
  it('cancels the browser’s default for drops from outside the page and names them, and leaves text alone', () => {
    const page = new EventTarget()
    const names: string[] = []
    const off = guardDrops(page as unknown as Window, (n) => names.push(n))
    const folder = transfer(['Files'], { files: ['projeto'] })
    expect(fire(page, 'dragover', folder)).toBe(true)
    expect(fire(page, 'drop', folder)).toBe(true)
    const uris = transfer(['text/uri-list'], { uriList: 'file:///srv/aulas/turma%20B' })
    expect(fire(page, 'drop', uris)).toBe(true)
    expect(names).toEqual(['projeto', 'turma B'])
    // Text dragged within the page: the browser's to handle.
    expect(fire(page, 'dragover', transfer(['text/plain']))).toBe(false)
    expect(fire(page, 'drop', transfer(['text/plain']))).toBe(false)
    off()
    expect(fire(page, 'drop', folder)).toBe(false)
    expect(names).toHaveLength(2)
  })

  it('leaves a URI list dragged over a text field to the field (it types it in)', () => {
    const field = document.createElement('textarea')
    document.body.append(field)
    const names: string[] = []
    const off = guardDrops(window, (n) => names.push(n))
    const uris = transfer(['text/uri-list'], { uriList: 'file:///srv/aulas/x.py' })
    expect(fire(field, 'dragover', uris)).toBe(false)
    expect(fire(document.body, 'dragover', uris)).toBe(true)
    off()
    field.remove()
    expect(names).toEqual([])
  })
})
