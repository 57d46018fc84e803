// @vitest-environment happy-dom
// JavaScript (Node.js) as a third language: chosen in the form, sent to the
// backend, and named by the export menu; configured aliases map onto it.
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { toLanguage } from '../../stores/composer'
import { fakeApi } from '../../test/fakeApi'
import { renderApp } from '../../test/render'
import { exportLabel } from '../history/ExportMenu'

afterEach(cleanup)

describe('languages', () => {
  it('maps configured names and aliases onto the three the form offers', () => {
    expect(['python', 'py', '', undefined, 'cobol'].map((x) => toLanguage(x as string))).toEqual(['python', 'python', 'python', 'python', 'python'])
    expect(['sh', 'bash', ' Shell '].map(toLanguage)).toEqual(['sh', 'sh', 'sh'])
    expect(['node', 'nodejs', 'JavaScript', 'js'].map(toLanguage)).toEqual(['node', 'node', 'node', 'node'])
  })

  it('sends language node when JavaScript is chosen', async () => {
    const api = fakeApi()
    renderApp(api)
    await screen.findByTestId('provider-fake')
    await waitFor(() => expect((screen.getByTestId('language') as HTMLSelectElement).disabled).toBe(false))
    fireEvent.change(screen.getByTestId('language'), { target: { value: 'node' } })
    fireEvent.change(screen.getByTestId('prompt'), { target: { value: 'Double a list' } })
    fireEvent.click(screen.getByTestId('run'))
    await waitFor(() => expect(api.startRun).toHaveBeenCalled())
    expect(api.startRun.mock.calls[0][0]).toMatchObject({ prompt: 'Double a list', language: 'node' })
  })

  it('names the script export after the run language, and a workspace run\'s as a patch', () => {
    expect(exportLabel('py', false, 'python')).toBe('Python script (.py)')
    expect(exportLabel('py', false, 'sh')).toBe('Shell script (.sh)')
    expect(exportLabel('py', false, 'javascript')).toBe('JavaScript (.js)')
    expect(exportLabel('py', true, 'diff')).toBe('Patch (.patch)')
    expect(exportLabel('md', false, 'sh')).toBe('Handout (Markdown)')
  })
})
