import { useCallback, useSyncExternalStore } from 'react'

/**
 * useNow: the time, in steps of intervalMs — re-rendering at each step while
 * active, read afresh at each render otherwise. The clock is an outside
 * source read through useSyncExternalStore: the interval is its
 * subscription, and a reading is Date.now() rounded down to the step, so
 * reads within one step agree (React requires a stable snapshot).
 */
export function useNow(active: boolean, intervalMs = 500): number {
  const subscribe = useCallback(
    (onTick: () => void) => {
      if (!active) return () => {}
      const id = setInterval(onTick, intervalMs)
      return () => clearInterval(id)
    },
    [active, intervalMs],
  )
  const read = useCallback(() => Math.floor(Date.now() / intervalMs) * intervalMs, [intervalMs])
  return useSyncExternalStore(subscribe, read)
}
