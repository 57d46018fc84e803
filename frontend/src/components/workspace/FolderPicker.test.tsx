// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { fakeApi } from '../../test/fakeApi'
import { renderApp } from '../../test/render'
import { crumbs } from './FolderPicker'

afterEach(cleanup)

const shownPath = () => screen.getByTestId('folder-path').getAttribute('data-path')
const folderNames = () => within(screen.getByTestId('folder-list')).getAllByRole('button').map((b) => b.textContent)

async function openPicker() {
  const r = renderApp()
  fireEvent.click(await screen.findByRole('button', { name: 'Browse…' }))
  const dialog = await screen.findByRole('dialog', { name: 'Choose the working folder' })
  await waitFor(() => expect(shownPath()).toBe('/home/ana'))
  return { ...r, dialog }
}

describe('FolderPicker (web)', () => {
  it('browses into a folder and up again, then sets the folder shown as the workdir', async () => {
    const { api, dialog } = await openPicker()
    expect(dialog.getAttribute('aria-modal')).toBe('true')
    expect(api.folders).toHaveBeenCalledWith('')
    expect(folderNames()).toEqual(['aulas', 'notas'])

    fireEvent.click(screen.getByRole('button', { name: 'aulas' }))
    await waitFor(() => expect(shownPath()).toBe('/home/ana/aulas'))
    expect(folderNames()).toEqual(['turma-1'])
    // The breadcrumb names every ancestor; the last one is where we are.
    expect(within(screen.getByRole('navigation', { name: 'Current folder' })).getByText('aulas').getAttribute('aria-current')).toBe('location')

    fireEvent.click(screen.getByRole('button', { name: 'turma-1' }))
    await waitFor(() => expect(shownPath()).toBe('/home/ana/aulas/turma-1'))
    expect(screen.getByText('No subfolders here.')).toBeTruthy()

    fireEvent.click(screen.getByRole('button', { name: /Up/ }))
    await waitFor(() => expect(shownPath()).toBe('/home/ana/aulas'))
    expect(api.folders).toHaveBeenLastCalledWith('/home/ana/aulas')

    fireEvent.click(screen.getByRole('button', { name: 'Use this folder' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(api.setWorkdir).toHaveBeenCalledWith('/home/ana/aulas')
    expect(screen.getByTestId('workdir-path').textContent).toBe('/home/ana/aulas')
  })

  it('shows why the server refused the folder and stays open', async () => {
    const { api } = await openPicker()
    api.setWorkdir.mockRejectedValueOnce(new Error('/home/ana: permission denied'))
    fireEvent.click(screen.getByRole('button', { name: 'Use this folder' }))
    expect((await screen.findByRole('alert')).textContent).toBe('/home/ana: permission denied')
    expect(screen.getByRole('dialog')).toBeTruthy()
    expect(screen.getByTestId('workdir-path').textContent).toBe('none chosen')
  })

  it('shows why a folder could not be listed', async () => {
    const { api } = await openPicker()
    api.folders!.mockRejectedValueOnce(new Error('cannot list /home/ana/notas: permission denied'))
    fireEvent.click(screen.getByRole('button', { name: 'notas' }))
    expect((await screen.findByTestId('folder-picker-error')).textContent).toBe('cannot list /home/ana/notas: permission denied')
    expect(shownPath()).toBe('/home/ana')
  })

  it('closes on Escape and on Cancel without changing the workdir', async () => {
    const { api } = await openPicker()
    fireEvent.keyDown(screen.getByRole('dialog'), { key: 'Escape' })
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    fireEvent.click(screen.getByRole('button', { name: 'Browse…' }))
    fireEvent.click(await screen.findByRole('button', { name: 'Cancel' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(api.setWorkdir).not.toHaveBeenCalled()
  })

  it('is not offered on the desktop, which has the native dialog', async () => {
    renderApp(fakeApi('desktop'))
    await screen.findByRole('button', { name: 'Choose folder…' })
    expect(screen.queryByRole('button', { name: 'Browse…' })).toBeNull()
  })

  it('splits POSIX paths into breadcrumbs', () => {
    expect(crumbs('/')).toEqual([{ name: '/', path: '/' }])
    expect(crumbs('/home/ana')).toEqual([
      { name: '/', path: '/' },
      { name: 'home', path: '/home' },
      { name: 'ana', path: '/home/ana' },
    ])
    expect(crumbs('C:\\Users\\ana')).toBeNull()
  })
})
