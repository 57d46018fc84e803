// Workdir store: the working directory shown in the header. The web face sets
// it from a typed path or from the folder picker (both validated by the
// server); the desktop face has the native folder dialog and folder drops on
// the window instead of the picker.

import { createStore, type StoreApi } from 'zustand/vanilla'
import type { Api, FolderListing } from '../api'
import { shownError, type ShownError } from '../api'

/** The web folder picker while it is open. */
export interface PickerState {
  /** The folder shown (null until the first listing arrives). */
  listing: FolderListing | null
  loading: boolean
  /** Setting the shown folder as the workdir. */
  saving: boolean
  /** Why a folder could not be listed or was refused as the workdir. */
  error: ShownError | null
}

export interface WorkdirState {
  path: string
  loaded: boolean
  saving: boolean
  error: ShownError | null
  canChoose: boolean
  /** Web: the server can list folders for the picker. */
  canBrowse: boolean
  /** The open folder picker; null when closed. */
  picker: PickerState | null
  /**
   * Web: the name of a folder (or file) just dropped on the page. A browser
   * gives a page the name only, never the path, so the face says so and
   * points to the picker; null = nothing to say.
   */
  dropped: string | null
  noteDrop(name: string): void
  clearDrop(): void
  load(): Promise<void>
  set(path: string): Promise<boolean>
  choose(): Promise<void>
  clearError(): void
  /** Opens the picker at the workdir (or the home directory). */
  openPicker(): Promise<void>
  /** Shows the subfolders of path in the open picker. */
  browse(path: string): Promise<void>
  /** Sets the folder shown as the workdir; closes the picker when the server accepts it. */
  pick(): Promise<boolean>
  closePicker(): void
  dispose(): void
}

export type WorkdirStore = StoreApi<WorkdirState>

export function createWorkdirStore(api: Api): WorkdirStore {
  // Only the latest listing asked for is shown, however the answers arrive.
  let browsing = 0
  const store = createStore<WorkdirState>()((set, get) => ({
    path: '',
    loaded: false,
    saving: false,
    error: null,
    canChoose: api.chooseWorkdir != null,
    canBrowse: api.folders != null,
    picker: null,
    dropped: null,
    noteDrop(name) {
      set({ dropped: name })
    },
    clearDrop() {
      set({ dropped: null })
    },
    async load() {
      try {
        set({ path: await api.workdir(), loaded: true })
      } catch (err) {
        set({ loaded: true, error: shownError(err) })
      }
    },
    async set(path) {
      set({ saving: true, error: null })
      try {
        set({ path: await api.setWorkdir(path.trim()), saving: false })
        return true
      } catch (err) {
        set({ saving: false, error: shownError(err) })
        return false
      }
    },
    async choose() {
      if (!api.chooseWorkdir) return
      set({ saving: true, error: null })
      try {
        set({ path: await api.chooseWorkdir(), saving: false })
      } catch (err) {
        set({ saving: false, error: shownError(err) })
      }
    },
    clearError() {
      set({ error: null })
    },
    async openPicker() {
      set({ picker: { listing: null, loading: false, saving: false, error: null }, error: null, dropped: null })
      await get().browse('')
    },
    async browse(path) {
      const picker = get().picker
      if (!api.folders || !picker) return
      const id = ++browsing
      set({ picker: { ...picker, loading: true, error: null } })
      const update = (p: Partial<PickerState>) => {
        const cur = get().picker
        if (cur && id === browsing) set({ picker: { ...cur, loading: false, ...p } })
      }
      try {
        update({ listing: await api.folders(path) })
      } catch (err) {
        update({ error: shownError(err) })
      }
    },
    async pick() {
      const picker = get().picker
      const target = picker?.listing?.path
      if (!picker || !target) return false
      set({ picker: { ...picker, saving: true, error: null } })
      try {
        const path = await api.setWorkdir(target)
        set({ path, picker: null, error: null })
        return true
      } catch (err) {
        const cur = get().picker
        if (cur) set({ picker: { ...cur, saving: false, error: shownError(err) } })
        return false
      }
    },
    closePicker() {
      browsing++
      set({ picker: null })
    },
    dispose() {
      off()
    },
  }))
  const off = api.onWorkdirDropped(
    (path) => store.setState({ path, error: null }),
    (message) => store.setState({ error: { message } }),
  )
  return store
}
