import { useState } from 'react'
import type { ClassView } from '../../api/gen/wire'
import { groupCode, normalizeCode } from '../../classroom'
import { strings } from '../../strings'
import { QrCode } from './QrCode'

/** joinLink: the join page with the code filled in (what the QR code holds: a phone only asks for the name). */
export function joinLink(url: string, code: string): string {
  try {
    const u = new URL(url)
    u.searchParams.set('code', normalizeCode(code))
    return u.toString()
  } catch {
    return url
  }
}

/**
 * JoinInfo: how students join — the address, the code in large type and a
 * QR code of the address with the code. `big` is the projector's version.
 */
export function JoinInfo({ cls, big = false }: { cls: ClassView; big?: boolean }) {
  const t = strings.classroom.instructor
  const [copied, setCopied] = useState(false)
  if (!cls.join_url || !cls.join_code) return null
  const link = joinLink(cls.join_url, cls.join_code)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(cls.join_url!)
      setCopied(true)
      setTimeout(() => setCopied(false), 1500)
    } catch {
      // No clipboard (plain http on a LAN address): the address is on screen to read.
    }
  }
  return (
    <section className={`join-info${big ? ' join-info-big' : ''}`} aria-label={t.joinAt} data-testid="join-info">
      <QrCode text={link} label={t.qr(cls.join_url)} className="join-qr" />
      <div className="join-text">
        <span className="join-label">{t.joinAt}</span>
        <a className="join-url" href={cls.join_url} target="_blank" rel="noreferrer" data-testid="join-url">
          {cls.join_url}
        </a>
        <span className="join-label">{t.code}</span>
        <strong className="join-code" data-testid="join-code">
          {groupCode(cls.join_code)}
        </strong>
        {!big && (
          <button type="button" className="btn btn-small btn-ghost join-copy" onClick={() => void copy()}>
            {copied ? t.copied : t.copy}
          </button>
        )}
      </div>
    </section>
  )
}
