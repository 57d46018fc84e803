// @vitest-environment happy-dom
import { act, cleanup, render, screen } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { useNow } from './useNow'

let renders = 0
function Clock({ active }: { active: boolean }) {
  renders++
  return <span data-testid="now">{useNow(active, 1000)}</span>
}
const shown = () => Number(screen.getByTestId('now').textContent)

describe('useNow', () => {
  const start = Date.parse('2026-11-21T10:00:00.400Z')
  beforeEach(() => {
    vi.useFakeTimers({ now: start })
    renders = 0
  })
  afterEach(() => {
    cleanup()
    vi.useRealTimers()
  })

  it('moves on each step while active, in whole steps', () => {
    render(<Clock active />)
    expect(shown()).toBe(start - 400)
    act(() => vi.advanceTimersByTime(1000))
    expect(shown()).toBe(start - 400 + 1000)
    act(() => vi.advanceTimersByTime(3000))
    expect(shown()).toBe(start - 400 + 4000)
  })

  it('does not re-render while inactive, and reads the time afresh when it renders', () => {
    const { rerender } = render(<Clock active={false} />)
    const before = renders
    act(() => vi.advanceTimersByTime(5000))
    expect(renders).toBe(before)
    rerender(<Clock active={false} />)
    expect(shown()).toBe(start - 400 + 5000)
    rerender(<Clock active />)
    act(() => vi.advanceTimersByTime(1000))
    expect(shown()).toBe(start - 400 + 6000)
  })
})
