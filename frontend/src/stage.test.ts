// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest'
import { follow, formCollapsed, isFollowing, isTextField, promptSummary, selectedIteration, shortcut, type FollowAction, type Pinned, type StageRun } from './stage'

afterEach(() => {
  document.body.innerHTML = ''
})

function el(html: string): HTMLElement {
  const host = document.createElement('div')
  host.innerHTML = html
  document.body.append(host)
  return host.firstElementChild as HTMLElement
}

describe('shortcut', () => {
  const body = () => document.body

  it('maps the stage keys when nothing is being typed', () => {
    expect(shortcut({ key: 'Escape', target: body() })).toBe('stop')
    expect(shortcut({ key: 'ArrowLeft', target: body() })).toBe('prev')
    expect(shortcut({ key: 'ArrowRight', target: body() })).toBe('next')
    expect(shortcut({ key: 'f', target: body() })).toBe('follow')
    expect(shortcut({ key: 'F', target: body() })).toBe('follow')
    expect(shortcut({ key: 'p', target: body() })).toBe('projector')
    expect(shortcut({ key: 'PageDown', target: body() })).toBe('pageNext')
    expect(shortcut({ key: 'PageUp', target: body() })).toBe('pagePrev')
    expect(shortcut({ key: 'x', target: body() })).toBeNull()
    expect(shortcut({ key: 'Enter', target: body() })).toBeNull()
  })

  it('runs on Ctrl+Enter or ⌘+Enter, from the prompt box too', () => {
    const prompt = el('<textarea></textarea>')
    expect(shortcut({ key: 'Enter', ctrlKey: true, target: prompt })).toBe('run')
    expect(shortcut({ key: 'Enter', metaKey: true, target: body() })).toBe('run')
    expect(shortcut({ key: 'Enter', ctrlKey: true, altKey: true, target: body() })).toBeNull()
  })

  it('leaves the single keys alone while typing in a text field', () => {
    const fields = [
      el('<textarea></textarea>'),
      el('<input type="text">'),
      el('<input>'),
      el('<input type="number">'),
      el('<input type="search">'),
      el('<input type="radio">'),
      el('<select><option>a</option></select>'),
      el('<div contenteditable="true">x</div>'),
    ]
    for (const f of fields) {
      for (const key of ['Escape', 'ArrowLeft', 'ArrowRight', 'f', 'p', 'PageUp']) {
        expect(shortcut({ key, target: f }), `${f.outerHTML} ${key}`).toBeNull()
      }
    }
  })

  it('acts on a focused button or checkbox (they take no typing)', () => {
    expect(shortcut({ key: 'ArrowRight', target: el('<button>Next</button>') })).toBe('next')
    expect(shortcut({ key: 'Escape', target: el('<input type="checkbox">') })).toBe('stop')
  })

  it('ignores keys held with a modifier, already handled, or being composed', () => {
    expect(shortcut({ key: 'p', ctrlKey: true, target: body() })).toBeNull()
    expect(shortcut({ key: 'ArrowLeft', altKey: true, target: body() })).toBeNull()
    expect(shortcut({ key: 'f', metaKey: true, target: body() })).toBeNull()
    expect(shortcut({ key: 'Escape', defaultPrevented: true, target: body() })).toBeNull()
    expect(shortcut({ key: 'p', isComposing: true, target: body() })).toBeNull()
  })

  it('leaves Escape and the rest to an open dialog or menu', () => {
    const menu = el('<details open><summary>Export</summary><button>py</button></details>')
    expect(shortcut({ key: 'Escape', target: menu.querySelector('button') })).toBeNull()
    el('<div role="dialog" aria-modal="true"><button>Up</button></div>')
    expect(shortcut({ key: 'Escape', target: body() })).toBeNull()
    expect(shortcut({ key: 'Enter', ctrlKey: true, target: body() })).toBe('run')
  })

  it('isTextField knows no target', () => {
    expect(isTextField(null)).toBe(false)
    expect(isTextField(window)).toBe(false)
  })
})

describe('follow', () => {
  const live: StageRun = { ns: [1, 2, 3], live: true }
  const done: StageRun = { ns: [1, 2, 3], live: false }
  const run = (r: StageRun, p: Pinned, ...as: FollowAction[]) => as.reduce((x, a) => follow(r, x, a), p)

  it('shows the newest iteration while following, and moves on with the run', () => {
    expect(selectedIteration(live, null)).toBe(3)
    expect(isFollowing(live, null)).toBe(true)
    expect(selectedIteration({ ns: [1, 2, 3, 4], live: true }, null)).toBe(4)
    expect(selectedIteration({ ns: [], live: true }, null)).toBeNull()
  })

  it('holds the view on a step back, and follows again on reaching the newest', () => {
    const back = run(live, null, { type: 'step', by: -1 })
    expect(back).toBe(2)
    expect(isFollowing(live, back)).toBe(false)
    // A new iteration arriving does not move a held view.
    expect(selectedIteration({ ns: [1, 2, 3, 4], live: true }, back)).toBe(2)
    expect(run(live, back, { type: 'step', by: 1 })).toBeNull()
    expect(run(live, null, { type: 'step', by: 1 })).toBeNull()
    expect(run(live, 1, { type: 'step', by: -1 })).toBe(1)
  })

  it('holds the view where it is when the user scrolls up, only while following a live run', () => {
    expect(run(live, null, { type: 'scrolledUp' })).toBe(3)
    expect(run(live, 1, { type: 'scrolledUp' })).toBe(1)
    expect(run(done, null, { type: 'scrolledUp' })).toBeNull()
  })

  it('F toggles following; Follow live returns to the newest', () => {
    expect(run(live, null, { type: 'toggle' })).toBe(3)
    expect(run(live, 2, { type: 'toggle' })).toBeNull()
    expect(run(live, 2, { type: 'follow' })).toBeNull()
    expect(run(live, null, { type: 'toggle' }, { type: 'toggle' })).toBeNull()
  })

  it('picking a chip holds that iteration, unless it is the newest of a live run', () => {
    expect(run(live, null, { type: 'select', n: 1 })).toBe(1)
    expect(run(live, 1, { type: 'select', n: 3 })).toBeNull()
    expect(run(done, null, { type: 'select', n: 3 })).toBe(3)
    expect(run(live, 2, { type: 'select', n: 9 })).toBe(2)
  })

  it('a finished run steps through its iterations (a replay)', () => {
    expect(run(done, 1, { type: 'step', by: 1 }, { type: 'step', by: 1 })).toBe(3)
    expect(run(done, 3, { type: 'step', by: 1 })).toBe(3)
    expect(isFollowing(done, null)).toBe(false)
  })
})

describe('the run form', () => {
  it('folds when a run starts and stays folded after it, until opened', () => {
    expect(formCollapsed(false, 'started')).toBe(true)
    expect(formCollapsed(true, 'expand')).toBe(false)
    expect(formCollapsed(false, 'collapse')).toBe(true)
    expect(formCollapsed(true, 'startFailed')).toBe(false)
  })

  it('summarises the prompt as its first line', () => {
    expect(promptSummary('\n  Write a greeting  \nin Python')).toBe('Write a greeting')
    expect(promptSummary('x'.repeat(200), 10)).toBe('xxxxxxxxx…')
    expect(promptSummary('')).toBe('')
  })
})
