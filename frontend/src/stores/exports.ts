// Exports store: where an export goes. In the browser an export is a plain
// download of the server's attachment (url); on the desktop the native save
// dialog writes it and the saved path is reported (save).

import { createStore, type StoreApi } from 'zustand/vanilla'
import type { Api, ExportFormat } from '../api'
import { errorMessage } from '../api'

export const exportFormats: ExportFormat[] = ['py', 'zip', 'md', 'html', 'ipynb', 'json']

export interface ExportsState {
  /** True when exports are downloads (url), false when they go through the save dialog (save). */
  download: boolean
  saving: boolean
  /** The last saved path ("" = the user cancelled the dialog). */
  savedPath: string | null
  error: string | null
  url(sessionId: string, format: ExportFormat, runId?: string): string
  save(sessionId: string, format: ExportFormat, runId?: string): Promise<void>
  clear(): void
}

export type ExportsStore = StoreApi<ExportsState>

export function createExportsStore(api: Api): ExportsStore {
  return createStore<ExportsState>()((set) => ({
    download: api.exportURL != null,
    saving: false,
    savedPath: null,
    error: null,
    url(sessionId, format, runId) {
      return api.exportURL?.(sessionId, format, runId) ?? ''
    },
    async save(sessionId, format, runId) {
      if (!api.saveExport) return
      set({ saving: true, error: null, savedPath: null })
      try {
        const savedPath = await api.saveExport(sessionId, format, runId)
        set({ saving: false, savedPath })
      } catch (err) {
        set({ saving: false, error: errorMessage(err) })
      }
    },
    clear() {
      set({ savedPath: null, error: null })
    },
  }))
}
