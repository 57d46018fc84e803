import { render } from '@testing-library/react'
import type { Me } from '../api/gen/wire'
import { App } from '../App'
import { createStores, type Stores } from '../stores'
import { fakeApi, memoryStorage, type FakeApi } from './fakeApi'

export interface RenderOptions {
  /**
   * Who the page already knows the caller is, as if Me had answered before
   * the first render (default: the instructor of `loopforge serve`, so the
   * app shows at once); null starts from the question (the class tests).
   */
  me?: Me | null
}

/** renderApp mounts the whole app over a fake Api, with synchronous event updates. */
export function renderApp(api: FakeApi = fakeApi(), opts: RenderOptions = {}): { api: FakeApi; stores: Stores } & ReturnType<typeof render> {
  const stores = createStores(api, { storage: memoryStorage(), schedule: (fn) => fn(), lang: 'en' })
  const me = opts.me === undefined ? { role: 'instructor' as const } : opts.me
  if (me) stores.classroom.setState({ me, status: 'ready', class: me.class ?? null })
  const r = render(<App stores={stores} />)
  return { api, stores, ...r }
}
