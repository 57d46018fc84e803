import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { createApi } from './api'
import { App } from './App'
import { createStores } from './stores'
import './fonts.css'
import './style.css'
import './class.css'
import './classpath.css'

const stores = createStores(createApi(), { systemDark: globalThis.matchMedia?.('(prefers-color-scheme: dark)').matches })

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App stores={stores} />
  </StrictMode>,
)
