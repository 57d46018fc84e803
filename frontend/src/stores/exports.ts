// Exports store: where an export goes. In the browser the export is fetched
// first (so a refusal — e.g. a run that produced no code — is shown, not
// swallowed by a cancelled download) and then handed to the browser as a
// file (fetchAndSave); on the desktop the native save dialog writes it and
// the saved path is reported (save).

import { createStore, type StoreApi } from 'zustand/vanilla'
import type { Api, ExportFormat } from '../api'
import { shownError, type ShownError } from '../api'
import { currentLang, timeZone } from '../strings'

export const exportFormats: ExportFormat[] = ['py', 'zip', 'md', 'html', 'ipynb', 'json']

/** Formats that need the run's final code (the server answers 409 without it). */
export const codeFormats: ExportFormat[] = ['py', 'ipynb']

/** SaveFile hands downloaded bytes to the user (the browser's download). */
export type SaveFile = (name: string, data: Blob) => void

export interface ExportsState {
  /** True when exports are downloads (url, fetchAndSave), false when they go through the save dialog (save). */
  download: boolean
  saving: boolean
  /** The last saved path ("" = the user cancelled the dialog). */
  savedPath: string | null
  error: ShownError | null
  /** Which menu the last export came from (exportTarget), so only that menu shows its outcome. */
  target: string | null
  url(sessionId: string, format: ExportFormat, runId?: string): string
  /** Web: downloads the export, or sets error to the server's reason. */
  fetchAndSave(sessionId: string, format: ExportFormat, runId?: string): Promise<void>
  save(sessionId: string, format: ExportFormat, runId?: string): Promise<void>
  clear(): void
}

export type ExportsStore = StoreApi<ExportsState>

/** exportTarget names one export menu: a session, or one run of it. */
export function exportTarget(sessionId: string, runId?: string): string {
  return runId ? `${sessionId}/${runId}` : sessionId
}

/** browserSave offers data as a download named name, as a link with a download attribute would. */
export const browserSave: SaveFile = (name, data) => {
  const url = URL.createObjectURL(data)
  const a = document.createElement('a')
  a.href = url
  a.download = name
  a.style.display = 'none'
  document.body.appendChild(a)
  a.click()
  a.remove()
  // The download has started from the click; the URL is no longer needed.
  setTimeout(() => URL.revokeObjectURL(url), 60_000)
}

export function createExportsStore(api: Api, saveFile: SaveFile = browserSave): ExportsStore {
  return createStore<ExportsState>()((set) => ({
    download: api.exportURL != null,
    saving: false,
    savedPath: null,
    error: null,
    target: null,
    url(sessionId, format, runId) {
      return api.exportURL?.(sessionId, format, runId, currentLang(), timeZone()) ?? ''
    },
    async fetchAndSave(sessionId, format, runId) {
      if (!api.fetchExport) return
      set({ saving: true, error: null, savedPath: null, target: exportTarget(sessionId, runId) })
      try {
        const file = await api.fetchExport(sessionId, format, runId, currentLang(), timeZone())
        saveFile(file.name, file.data)
        set({ saving: false })
      } catch (err) {
        set({ saving: false, error: shownError(err) })
      }
    },
    async save(sessionId, format, runId) {
      if (!api.saveExport) return
      set({ saving: true, error: null, savedPath: null, target: exportTarget(sessionId, runId) })
      try {
        const savedPath = await api.saveExport(sessionId, format, runId, currentLang(), timeZone())
        set({ saving: false, savedPath })
      } catch (err) {
        set({ saving: false, error: shownError(err) })
      }
    },
    clear() {
      set({ savedPath: null, error: null, target: null })
    },
  }))
}
