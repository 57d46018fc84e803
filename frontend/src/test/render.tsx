import { render } from '@testing-library/react'
import { App } from '../App'
import { createStores, type Stores } from '../stores'
import { fakeApi, memoryStorage, type FakeApi } from './fakeApi'

/** renderApp mounts the whole app over a fake Api, with synchronous event updates. */
export function renderApp(api: FakeApi = fakeApi()): { api: FakeApi; stores: Stores } & ReturnType<typeof render> {
  const stores = createStores(api, { storage: memoryStorage(), schedule: (fn) => fn(), lang: 'en' })
  const r = render(<App stores={stores} />)
  return { api, stores, ...r }
}
