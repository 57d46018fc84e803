import type { Api } from './api'
import { httpApi } from './http'
import { wailsApi } from './wails'

export type { Api, ConnectionState, EventStream, ExportFile, Face, ShownError } from './api'
export { ApiError, errorMessage, errorWords, shownError, toApiError } from './api'
export type * from './types'

/** The part of window that Wails injects in the desktop app. */
export interface WailsGlobals {
  go?: { main?: { App?: unknown } }
}

declare global {
  // Only this module looks at window.go; components receive an Api instead.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merges WailsGlobals into Window
  interface Window extends WailsGlobals {}
}

/** inDesktop reports whether the page runs inside the Wails window. */
export function inDesktop(win: WailsGlobals | undefined = globalThis.window): boolean {
  return win?.go?.main?.App != null
}

/** createApi picks the Wails bindings in the desktop app and HTTP otherwise. */
export function createApi(win: WailsGlobals | undefined = globalThis.window): Api {
  return inDesktop(win) ? wailsApi : httpApi()
}
