import { useState } from 'react'
import { errorWords } from '../../api'
import { groupCode, nameProblem, normalizeCode } from '../../classroom'
import { useClassroom, useStores } from '../../stores'
import { strings } from '../../strings'
import { LookSwitches } from '../common/LookSwitches'
import { SeenNotice } from './SeenNotice'

/** The code a link brought (?code=…, what the QR code holds). */
function codeFromAddress(): string {
  try {
    return normalizeCode(new URLSearchParams(globalThis.location?.search ?? '').get('code') ?? '')
  } catch {
    return ''
  }
}

/**
 * JoinPage (/join): a student types the class code and the name the class
 * will see; on success the server sets their cookie and the student app
 * takes over (onJoined).
 */
export function JoinPage({ onJoined }: { onJoined(): void }) {
  const stores = useStores()
  const t = strings.classroom.join
  const joining = useClassroom((c) => c.joining)
  const error = useClassroom((c) => c.joinError)
  const canJoin = stores.api.joinClass != null
  const [code, setCode] = useState(() => groupCode(codeFromAddress()))
  const [name, setName] = useState('')
  const [hint, setHint] = useState<string | null>(null)

  const submit = async () => {
    if (normalizeCode(code).length < 6) return setHint(t.needCode)
    const bad = nameProblem(name)
    if (bad) return setHint(bad === 'empty' ? t.nameEmpty : t.nameLong)
    setHint(null)
    if (await stores.classroom.getState().join(code, name)) onJoined()
  }

  const retryAt = error?.retryAt ? new Date(error.retryAt).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' }) : null

  return (
    <div className="join-page" data-testid="join-page">
      <div className="join-corner">
        <LookSwitches />
      </div>
      <form
        className="join-card card"
        onSubmit={(e) => {
          e.preventDefault()
          void submit()
        }}
        aria-labelledby="join-title"
      >
        <div className="brand join-brand" aria-label="loopforge">
          <span className="brand-mark" aria-hidden="true">
            ⟳
          </span>
          <span>
            loop<span className="accent">forge</span>
          </span>
        </div>
        <h1 id="join-title" className="join-title">
          {t.title}
        </h1>
        {!canJoin ? (
          <p className="notice notice-warn">{t.desktop}</p>
        ) : (
          <>
            <p className="muted">{t.intro}</p>
            <SeenNotice where="join" />
            <label className="join-field">
              <span className="field-label">{t.code}</span>
              <input
                className="join-code-input"
                value={code}
                onChange={(e) => setCode(groupCode(e.target.value))}
                placeholder={t.codePlaceholder}
                autoComplete="off"
                autoCapitalize="characters"
                spellCheck={false}
                maxLength={9}
                autoFocus={!code}
                data-testid="join-code-input"
              />
            </label>
            <label className="join-field">
              <span className="field-label">{t.name}</span>
              <input
                value={name}
                onChange={(e) => setName(e.target.value)}
                placeholder={t.namePlaceholder}
                autoComplete="name"
                maxLength={60}
                autoFocus={!!code}
                data-testid="join-name"
              />
            </label>
            <button type="submit" className="btn btn-primary btn-big" disabled={joining} data-testid="join-submit">
              {joining ? t.joining : t.submit}
            </button>
            {hint && <p className="notice notice-warn">{hint}</p>}
            {error && (
              <p className="notice notice-error" role="alert" data-testid="join-error">
                <strong>{t.failed}:</strong> {errorWords(error.message)}
                {retryAt && <> {t.retryAt(retryAt)}</>}
              </p>
            )}
          </>
        )}
      </form>
    </div>
  )
}
