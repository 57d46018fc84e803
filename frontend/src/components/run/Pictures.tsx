import { useEffect, useState } from 'react'
import type { Api, ImageRef } from '../../api'
import { useStores } from '../../stores'
import { strings } from '../../strings'

/**
 * The bytes of each picture, fetched once per app (a picture of a stored
 * run never changes): run id, iteration and name → a data: URL.
 */
const cache = new WeakMap<Api, Map<string, Promise<string>>>()

function pictureURL(api: Api, runId: string, iteration: number, name: string): Promise<string> {
  let byKey = cache.get(api)
  if (!byKey) cache.set(api, (byKey = new Map()))
  const key = `${runId}\n${iteration}\n${name}`
  let p = byKey.get(key)
  if (!p) {
    p = api.call('Image', { run_id: runId, iteration, name }).then((d) => {
      // Only an image type becomes an <img> source (never markup in the page).
      if (!/^data:image\/(png|jpeg|gif|svg\+xml);base64,/.test(d.data_url)) throw new Error('not a picture')
      return d.data_url
    })
    p.catch(() => byKey.delete(key)) // a failed fetch is tried again next time
    byKey.set(key, p)
  }
  return p
}

/**
 * Pictures: the figures and image files a program left, as a strip below
 * its output, each an <img> (an SVG too: shown as a picture, never inlined),
 * with what was left out and why.
 */
export function Pictures({ runId, iteration, images, skipped }: { runId: string; iteration: number; images: ImageRef[]; skipped: string[] }) {
  const s = strings.live
  if (images.length === 0 && skipped.length === 0) return null
  return (
    <div className="pictures" data-testid="pictures">
      <span className="out-label">{s.pictures}</span>
      {images.length > 0 && (
        <div className="pictures-strip">
          {images.map((im) => (
            <Picture key={im.name} runId={runId} iteration={iteration} image={im} />
          ))}
        </div>
      )}
      {skipped.length > 0 && (
        <p className="muted small" data-testid="pictures-skipped">
          {s.picturesSkipped} {skipped.join('; ')}
        </p>
      )}
    </div>
  )
}

function Picture({ runId, iteration, image }: { runId: string; iteration: number; image: ImageRef }) {
  const { api } = useStores()
  // The answer for one picture: another picture's (or none yet) reads as loading, so a new
  // fetch starts without a reset in the effect.
  const key = `${runId}\n${iteration}\n${image.name}`
  const [answer, setAnswer] = useState<{ key: string; src?: string; failed?: boolean } | null>(null)
  const state: { src?: string; failed?: boolean } = answer?.key === key ? answer : {}
  const [large, setLarge] = useState(false)
  useEffect(() => {
    let live = true
    pictureURL(api, runId, iteration, image.name).then(
      (src) => live && setAnswer({ key, src }),
      () => live && setAnswer({ key, failed: true }),
    )
    return () => {
      live = false
    }
  }, [api, runId, iteration, image.name, key])
  const s = strings.live
  return (
    <figure className={`picture${large ? ' picture-large' : ''}`} data-testid="picture" data-name={image.name}>
      {state.src ? (
        // Small enough to see whole next to the output; a click shows it at full size.
        <button type="button" className="picture-zoom" aria-pressed={large} title={large ? s.pictureSmaller : s.pictureLarger} onClick={() => setLarge(!large)}>
          <img src={state.src} alt={image.name} width={image.width || undefined} height={image.height || undefined} />
        </button>
      ) : (
        <div className={`picture-wait muted small${state.failed ? '' : ' pulse'}`}>{state.failed ? s.pictureFailed : s.pictureLoading}</div>
      )}
      <figcaption className="mono small">{image.name}</figcaption>
    </figure>
  )
}
