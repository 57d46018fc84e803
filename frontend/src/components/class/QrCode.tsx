import { useMemo } from 'react'
import { create } from 'qrcode'

/**
 * qrPath draws the dark modules of text's QR code as one SVG path (one unit
 * per module, a quiet zone of `margin` modules around), and returns it with
 * the side of the whole square.
 */
export function qrPath(text: string, margin = 2): { d: string; size: number } {
  const m = create(text, { errorCorrectionLevel: 'M' }).modules
  let d = ''
  for (let y = 0; y < m.size; y++) {
    for (let x = 0; x < m.size; x++) {
      if (m.get(y, x)) d += `M${x + margin} ${y + margin}h1v1h-1z`
    }
  }
  return { d, size: m.size + 2 * margin }
}

/**
 * QrCode: the QR code of text as inline SVG (npm `qrcode` encodes it), dark
 * on white in either theme so phones read it off a projector too.
 */
export function QrCode({ text, label, className }: { text: string; label: string; className?: string }) {
  const { d, size } = useMemo(() => qrPath(text), [text])
  return (
    <svg className={`qr${className ? ` ${className}` : ''}`} viewBox={`0 0 ${size} ${size}`} role="img" aria-label={label} shapeRendering="crispEdges" data-testid="qr" data-text={text}>
      <rect width={size} height={size} fill="#fff" />
      <path d={d} fill="#000" />
    </svg>
  )
}
