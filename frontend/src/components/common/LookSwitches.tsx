import { useSettings, useStores } from '../../stores'
import { effectiveTheme } from '../../stores/settings'
import { strings } from '../../strings'
import { AutoIcon, MoonIcon, SunIcon } from './Icons'

/** LookSwitches: the language and theme buttons, for the pages without the header (join, projector). */
export function LookSwitches() {
  return (
    <div className="look-switches">
      <LanguageSwitch />
      <ThemeButton />
    </div>
  )
}

/** LanguageSwitch: pt | en, for the header and the pages without it. */
export function LanguageSwitch() {
  const stores = useStores()
  const lang = useSettings((s) => s.lang)
  return (
    <div className="lang-switch" role="group" aria-label={strings.language.label} data-testid="lang">
      {(['pt', 'en'] as const).map((l) => (
        <button
          key={l}
          type="button"
          className={`lang-btn${lang === l ? ' lang-on' : ''}`}
          aria-pressed={lang === l}
          title={strings.language[l]}
          lang={l}
          onClick={() => stores.settings.getState().setLang(l)}
          data-testid={`lang-${l}`}
        >
          {l}
        </button>
      ))}
    </div>
  )
}

/** ThemeButton cycles system → light → dark. */
export function ThemeButton() {
  const stores = useStores()
  const theme = useSettings((s) => s.theme)
  const dark = useSettings((s) => effectiveTheme(s) === 'dark')
  const t = strings.theme
  return (
    <button
      type="button"
      className="icon-btn"
      onClick={() => stores.settings.getState().cycleTheme()}
      title={`${t.label}: ${t[theme]}`}
      aria-label={`${t.label}: ${t[theme]}`}
      data-testid="theme"
      data-theme={theme}
    >
      {theme === 'system' ? <AutoIcon /> : dark ? <MoonIcon /> : <SunIcon />}
    </button>
  )
}
