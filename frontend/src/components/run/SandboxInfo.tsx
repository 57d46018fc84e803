import { bytes, seconds } from '../../format'
import { useComposer, useProviders } from '../../stores'
import { strings } from '../../strings'

/**
 * SandboxInfo: one compact line under the prompt saying what the code about
 * to run gets — the isolation level, memory, processes, output and network
 * (which turns into a warning while "Allow network" is ticked, or where
 * the sandbox cannot keep the code off the network: Windows, macOS); in
 * workspace mode also the time limit of each validation command, or a
 * warning when loopforge.yml runs those commands unsandboxed. The rest of
 * the limits are in its tooltip. It holds its line while the defaults load,
 * so the form does not move when they arrive.
 */
export function SandboxInfo() {
  const s = strings.run.sandbox
  const d = useProviders((p) => p.defaults)
  const loaded = useProviders((p) => p.loaded)
  const failed = useProviders((p) => p.error != null)
  const net = useComposer((x) => x.allowNetwork)
  const workspace = useComposer((x) => x.mode === 'workspace')

  if (!loaded) {
    if (failed) return null
    return (
      <div className="sandbox-info" data-testid="sandbox-info" aria-busy="true">
        <p className="sandbox-line pulse">{s.loading}</p>
      </div>
    )
  }
  // An older server does not report the limits: say nothing rather than guess.
  if (!d?.limits) return null
  const l = d.limits
  const timeout = seconds(d.command_timeout_seconds ?? 0)

  if (workspace && d.commands_sandboxed === false) {
    // Nothing of the sandbox applies: the commands run as the user.
    return (
      <div className="sandbox-info" data-testid="sandbox-info">
        <p className="notice notice-warn sandbox-warn" role="note" data-testid="sandbox-unsandboxed">
          <span aria-hidden="true">⚠ </span>
          {s.unsandboxed(timeout)}
        </p>
      </div>
    )
  }
  if (!d.isolation) {
    return (
      <div className="sandbox-info" data-testid="sandbox-info">
        <p className="notice notice-warn sandbox-warn" role="note" data-testid="sandbox-unavailable">
          <span aria-hidden="true">⚠ </span>
          {s.unavailable}
        </p>
      </div>
    )
  }
  // An older server does not say: it isolated the network wherever it ran.
  const isolatedNet = d.network_isolated !== false
  const reachable = net || !isolatedNet
  const details = s.details({
    memory: bytes(l.memory_bytes),
    processes: l.processes,
    output: bytes(l.output_bytes),
    fileSize: bytes(l.file_size_bytes),
    openFiles: l.open_files,
    cpus: l.cpus,
  })
  return (
    <div className="sandbox-info" data-testid="sandbox-info">
      <p className="sandbox-line" title={details} data-testid="sandbox-limits">
        <span className="sandbox-label">{s.label}:</span>
        <span className="sandbox-item sandbox-level" data-testid="sandbox-isolation" title={s.levels[d.isolation.split('+')[0]]}>
          {d.isolation}
        </span>
        <span className="sandbox-item">{s.memory(bytes(l.memory_bytes))}</span>
        <span className="sandbox-item">{s.processes(l.processes)}</span>
        <span className="sandbox-item">{s.output(bytes(l.output_bytes))}</span>
        <span className={`sandbox-item sandbox-last sandbox-net${reachable ? ' sandbox-net-on' : ''}`} data-testid="sandbox-network" data-allowed={net}>
          {reachable && <span aria-hidden="true">⚠ </span>}
          {net ? s.network : isolatedNet ? s.noNetwork : s.networkNotIsolated}
        </span>
        <span className="sr-only"> — {details}</span>
      </p>
      {workspace && (
        <p className="sandbox-line sandbox-commands" data-testid="sandbox-commands">
          {s.commands(timeout)}
        </p>
      )}
    </div>
  )
}
