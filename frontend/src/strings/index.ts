import type { ExecNote, ExecStatus, Note, Notice, Outcome, Protection } from '../api/gen/event'
import { bytes, integer, seconds } from '../format'
import { classEn, classPt } from './class'
import { testsEn, testsPt } from './tests'
import { firstRunEn, firstRunPt } from './firstrun'
// Every UI string in one place: an English and a Portuguese table with the
// same keys (the type checker lists anything missing). `strings` is the
// table in use; setLanguage swaps it and the app re-renders (App.tsx).

/** The parameters of an error, by name (backend: service.Code). */
type P = Record<string, string>

/** detailed adds what the program or the system printed to a head: "exit 1: ValueError: boom". */
function detailed(head: string, p: P): string {
  return p.detail ? `${head}: ${p.detail}` : head
}

/**
 * osName names the system of a sandbox note's "os" parameter, set where
 * loopforge has no file or network isolation at all (Windows, macOS); ""
 * on Linux, whose notes say how to get it instead.
 */
function osName(os: string | undefined): string {
  return os === 'windows' ? 'Windows' : os === 'macos' ? 'macOS' : ''
}

/** retryReason: why a call is retried, with the HTTP status when there was one. */
function retryReason(p: P, words: Record<string, string>): string {
  const why = words[p.reason ?? ''] ?? p.reason ?? ''
  return p.status ? `${why} (HTTP ${p.status})` : why
}

/** said adds what the provider itself said, when it said something. */
function said(p: P): string {
  return p.message ? ` ${current === 'pt' ? 'Ele disse' : 'It said'}: ${p.message}` : ''
}

/** The most models a missing-model message names; the picker shows them all. */
const maxModelsNamed = 40

/**
 * modelsNamed is a ", "-separated list of models cut to maxModelsNamed,
 * with how many more there are (in words from more(n)).
 */
function modelsNamed(list: string, more: (n: number) => string): string {
  const all = list.split(', ').filter(Boolean)
  if (all.length <= maxModelsNamed) return all.join(', ')
  return `${all.slice(0, maxModelsNamed).join(', ')} ${more(all.length - maxModelsNamed)}`
}

const en = {
  appTagline: 'Watch AI models write, run and fix code',
  nav: { run: 'Run', history: 'History', stats: 'Stats', class: classEn.tab },
  classroom: classEn,
  tests: testsEn,
  firstRun: firstRunEn,
  language: { label: 'Language', en: 'English', pt: 'Português' },
  theme: {
    label: 'Theme',
    system: 'System theme',
    light: 'Light theme',
    dark: 'Dark theme',
  },
  projector: { on: 'Projector mode on', off: 'Projector mode' },

  stage: {
    /** The one-line run form while a run takes the screen. */
    bar: 'The run on stage',
    expand: 'Edit prompt',
    expandTitle: 'Show the whole run form',
    collapse: 'Hide form',
    collapseTitle: 'Fold the form to one line so the run takes the screen',
    keys: 'Keys: Ctrl+Enter run · Esc stop · ← → iterations · F follow live · P projector',
    followTitle: 'Follow the newest iteration again (F)',
    unfollowTitle: 'Hold this iteration on screen (F)',
  },

  connection: {
    connecting: 'Connecting to live updates…',
    reconnecting: (attempt: number, seconds: number) =>
      `Live updates lost — reconnecting${seconds >= 1 ? ` in ${seconds}s` : ''} (attempt ${attempt})`,
    paused: 'Live updates paused: reconnecting. Nothing is lost; the run continues on the server.',
  },

  workdir: {
    label: 'Workdir',
    none: 'none chosen',
    change: 'Change',
    choose: 'Choose folder…',
    dropHint: 'or drop a folder on the window',
    placeholder: '/path/to/a/folder',
    set: 'Set',
    cancel: 'Cancel',
    saving: 'Checking…',
    webHint: 'Type the full path of a folder on the machine running loopforge.',
    browse: 'Browse…',
    browseTitle: 'Pick a folder on the machine running loopforge',
    pickerTitle: 'Choose the working folder',
    pickerHint: 'Folders on the machine running loopforge. Open one, then use it.',
    location: 'Current folder',
    up: 'Up',
    upTitle: 'Go to the parent folder',
    subfolders: 'Subfolders',
    loading: 'Loading…',
    noSubfolders: 'No subfolders here.',
    use: 'Use this folder',
    dropped: (name: string) =>
      `You dropped “${name}”. A browser does not tell the page where a dropped folder is on this machine: choose it with Browse…, or type its path with Change.`,
    droppedNoBrowse: (name: string) => `You dropped “${name}”. A browser does not tell the page where a dropped folder is on this machine: type its path with Change.`,
    dismiss: 'Dismiss',
  },

  run: {
    prompt: 'Prompt',
    promptPlaceholder: 'Describe the program the model should write — or pick a preset.',
    preset: 'Preset',
    presetNone: 'Choose a preset…',
    providers: 'Providers',
    compareHint: 'Tick several to compare them side by side.',
    providersLoading: 'Looking for providers…',
    providersError: 'Could not list the providers',
    noProviders: 'No provider is configured.',
    noReadyProvider: 'No provider is ready. Fix one of the reasons below, then press Retry.',
    notReady: 'not ready',
    keyRejected: (time: string, why: string) => `Key rejected at ${time}: ${why}`,
    /** keyRejectedCoded words a rejection (code provider.auth) from its parameters; the provider's own words are quoted. */
    keyRejectedCoded: (time: string, p: P) =>
      `Key rejected at ${time}${p.status ? ` (HTTP ${p.status})` : ''}${p.env ? `: check ${p.env}` : ''}.${said(p)}`,
    notReadyCount: (n: number) => `${n} not ready — why?`,
    models: 'Models',
    modelsTitle: (provider: string) => `The models ${provider}'s key can use (asks its API)`,
    modelsLoading: (provider: string) => `Asking ${provider} for its models…`,
    modelsError: 'Could not list the models',
    modelsCount: (n: number) => (n === 1 ? '1 model this key can use' : `${n} models this key can use`),
    modelsNone: 'This key can use no models.',
    modelsFilter: 'Filter the models',
    modelsNoMatch: 'No model matches.',
    modelUse: (model: string) => `Run with ${model}`,
    modelProfile: (model: string) => `Back to the profile's model (${model})`,
    modelPicked: 'picked',
    modelPickedTitle: (model: string) => `Picked from the models list; the profile's model is ${model}`,
    modelAlone: "A model picked from a list is used when that provider runs alone; a comparison uses each profile's model.",
    isDefault: 'default',
    retry: 'Retry',
    settings: 'Settings',
    maxIterations: 'Max iterations',
    reflect: 'Reflection',
    reflectOn: 'on',
    reflectOff: 'off',
    timeout: 'Timeout (s)',
    language: 'Language',
    languages: { python: 'Python', sh: 'Shell', node: 'JavaScript (Node.js)' },
    stdin: 'Input (stdin, optional)',
    stdinPlaceholder: 'What the program reads with input(), one answer per line',
    stdinHint: 'Given to the program on its standard input (up to 64 KiB), then end of file. Kept with the run.',
    start: 'Run',
    compare: (n: number) => `Compare ${n}`,
    starting: 'Starting…',
    stop: 'Stop',
    stopping: 'Stopping…',
    needPrompt: 'Write a prompt or pick a preset first.',
    /** The prompt's size as it nears the limit (max_prompt_bytes). */
    promptSize: (size: number, chars: number, max: number) => `${bytes(size)} of ${bytes(max)} (${integer(chars)} characters)`,
    promptTooLong: (size: number, chars: number, max: number) =>
      `The prompt is too long: ${integer(size)} bytes (${integer(chars)} characters); a run takes at most ${bytes(max)} (${integer(max)} bytes). Shorten it first.`,
    needProvider: 'Choose a ready provider first.',
    startFailed: 'The run did not start',
    empty: 'Press Run to watch the loop: generate → execute → reflect → fix.',
    mode: 'Mode',
    modes: { script: 'Script', workspace: 'Workspace' },
    modeHints: {
      script: 'The model writes one script; loopforge runs it in the sandbox.',
      workspace: 'The model edits the files of a project (a git repository); your commands check each attempt, and a passing change is committed to a new branch.',
    },
    workspace: 'Workspace',
    project: 'Project folder',
    projectNone: 'No folder chosen',
    projectHint: 'A git repository with no uncommitted changes. The work happens on a new branch loopforge/…',
    projectChoose: 'Choose…',
    validate: 'Validation commands',
    validateHint: 'One shell command per line, run in the project folder after each attempt.',
    validatePlaceholder: 'pytest -q',
    auditor: 'Auditor',
    auditorNone: 'None',
    auditorNotReady: (name: string) => `${name} (not ready)`,
    auditorHint: 'Another model reviews a change that passed validation.',
    inputs: 'Inputs (optional)',
    inputsHint: 'Paths in the project, one per line: files are read into the prompt, folders shown as a tree.',
    inputsPlaceholder: 'calc.py\ntests/',
    constraints: 'Constraints (optional)',
    constraintsHint: 'One per line.',
    constraintsPlaceholder: 'Do not change the tests.',
    needWorkdir: 'Choose the project folder (a git repository) first: workspace mode edits files there.',
    allowNetwork: 'Allow network for this run',
    allowNetworkHint:
      'The generated code (and, in workspace mode, the commands) can reach the internet and your local network. Only for the next run: it switches off again once the run starts.',
    /** Shown in a number field until the configured defaults arrive. */
    loadingValue: '…',
    sandbox: {
      label: 'Sandbox',
      loading: 'Sandbox: …',
      memory: (size: string) => `${size} memory`,
      processes: (n: number) => `${n} ${n === 1 ? 'process' : 'processes'}`,
      output: (size: string) => `${size} output`,
      noNetwork: 'no network',
      network: 'network allowed',
      networkNotIsolated: 'network not isolated on this system',
      /** What each isolation level is, shown over its name ("+cgroup" adds a cgroup of the run's own). */
      levels: {
        basic: 'basic: own process group, resource limits, a private temporary folder, a clean environment',
        job: 'job (Windows): the code and everything it starts run in one job object, killed together, with a process and a memory limit; no file or network isolation',
        landlock: 'landlock: read-only files outside the run folder, no internet, no signals to the app',
        namespace: 'namespace (bubblewrap): own network, processes and file view; only the system folders and the run folder are visible',
      } as Record<string, string>,
      unavailable: 'Sandbox not available: generated code cannot run on this machine (loopforge doctor says why).',
      details: (l: { memory: string; processes: number; output: string; fileSize: string; openFiles: number; cpus: number }) =>
        `Each execution gets at most ${l.memory} of memory, ${l.processes} processes and threads, ${l.output} of output per stream, files up to ${l.fileSize}, ${l.openFiles} open files and ${l.cpus} CPU${l.cpus === 1 ? '' : 's'}. Set under limits: in loopforge.yml.`,
      commands: (t: string) => `Validation commands: up to ${t} each, in the sandbox.`,
      unsandboxed: (t: string) =>
        `Validation commands run unsandboxed, as you: your files and the network are within their reach (workspace: {sandbox: false} in loopforge.yml). Up to ${t} each.`,
    },
  },

  live: {
    iteration: 'Iteration',
    iterationOf: (n: number, max: number) => (max > 0 ? `Iteration ${n} of ${max}` : `Iteration ${n}`),
    waiting: 'Waiting for the first event…',
    elapsed: 'Elapsed',
    tokens: 'Tokens',
    tokensInOut: (i: string, o: string) => `${i} in · ${o} out`,
    modelOutput: 'Model output',
    generation: 'Generation',
    reflection: 'Reflection',
    noReflection: 'No reflection for this iteration.',
    reflectionOff: 'Reflection is off for this run.',
    code: 'Code',
    finalCode: 'Final code',
    lastAttempt: (n: number) => `Last attempt (#${n})`,
    diff: (n: number) => `Diff vs #${n}`,
    noCodeYet: 'No code yet.',
    noCode: 'The answer had no usable code.',
    copy: 'Copy',
    copied: 'Copied',
    output: 'Execution',
    running: 'Running the code…',
    notRunYet: 'Not run yet.',
    stdout: 'stdout',
    stderr: 'stderr',
    stdin: 'Input (stdin)',
    liveCapped: 'Long output: the rest is shown when the program ends (its beginning and end are kept).',
    unfinished: 'The program did not finish: this is what it printed.',
    exitCode: 'exit code',
    duration: 'duration',
    isolation: 'isolation',
    protections: 'protections',
    signal: 'signal',
    truncated: 'Output was long: only its beginning and end were kept.',
    pictures: 'Pictures',
    pictureLoading: 'Loading the picture…',
    pictureFailed: 'This picture could not be loaded.',
    pictureLarger: 'Show at full size',
    pictureSmaller: 'Show smaller',
    picturesSkipped: 'Left out:',
    formatError: 'Unusable answer',
    prev: 'Previous',
    next: 'Next',
    follow: 'Follow live',
    step: (n: number, total: number) => `Step ${n} of ${total}`,
    phase: {
      generating: 'writing',
      executing: 'running',
      validating: 'validating',
      auditing: 'reviewing',
      reflecting: 'reflecting',
      success: 'passed',
      error: 'failed',
      stopped: 'stopped',
    },
    checks: (passed: number, total: number) => `${passed}/${total} checks`,
    networkBadge: 'Network allowed',
    networkBadgeTitle: 'The user allowed this run’s code to reach the network.',
    workspaceBadge: 'Workspace',
    tools: 'Tool calls',
    noTools: 'No tool calls yet.',
    noToolsDone: 'The model called no tools in this attempt.',
    toolOk: 'ok',
    toolFailed: 'failed',
    toolArgs: 'Arguments',
    toolOutput: 'Output (sent back to the model)',
    noOutput: '(empty)',
    validation: 'Validation',
    validating: 'Running the validation commands…',
    notValidated: 'Not validated yet.',
    notValidatedError: 'Not validated: the attempt failed before the commands ran.',
    noValidation: 'No validation commands: a usable answer counts as done.',
    passed: 'passed',
    failed: 'failed',
    timedOut: 'timed out',
    audit: 'Review',
    auditing: 'The auditor is reviewing the change…',
    approved: 'Approved by the auditor',
    rejected: 'Rejected by the auditor',
    notAudited: 'Not reviewed: only a change that passes validation is.',
    project: 'Project',
    checksLabel: 'Validation',
    auditorLabel: 'Auditor',
    none: 'none',
    branch: 'Branch',
    worktree: 'Worktree',
    metadata: 'Run record',
    committed: 'Committed',
    uncommitted: (branch: string) => `Changes left uncommitted on branch ${branch} for inspection.`,
    uncommittedNoBranch: 'Changes left uncommitted in the project folder for inspection.',
    workingOn: 'Working on branch',
    changes: 'Changes (git diff)',
    onBranch: 'on',
    fullMessage: 'Full message',
    argLines: (n: number) => `${n} lines`,
    argChars: (n: number) => `${n} chars`,
    noOutputAtAll: 'No output.',
    stillStopping: 'Still stopping… waiting for the server to confirm.',
    cancelFailed: 'Stop failed',
    streamFailed: 'Live updates for this run failed',
    logs: 'Notices',
    /** loopforge's notices by their code (backend/event Notice); a provider's own notices are shown as they came. */
    notices: {
      retry: (p: P) =>
        `${p.provider}: ${retryReason(p, { rate_limit: 'rate limited', server: 'server error', request_timeout: 'request timeout', connection_closed: 'the connection closed before the answer began' })}, retrying ${Number(p.wait_ms) > 0 ? `in ${seconds(Number(p.wait_ms) / 1000)}` : 'now'} (retry ${p.retry}/${p.max})`,
      reflection_empty: () => 'The reflection was empty; retrying with the error report only.',
      no_change: () => 'Validation passed but nothing changed: no commit.',
      metadata_failed: (p: P) => `Could not write the run metadata: ${p.detail}`,
      sandbox: (p: P) => `Sandbox: ${execNote({ code: p.note ?? '', params: p })}`,
      worktree_kept: (p: P) => `The worktree ${p.path} (branch ${p.branch}) is kept for inspection; remove it with: git worktree remove --force ${p.path}`,
      worktree_meta_failed: (p: P) => `The worktree ${p.path} is kept: its run metadata could not be copied: ${p.detail}`,
      worktree_remove_failed: (p: P) => `The worktree ${p.path} could not be removed: ${p.detail}`,
      worktree_removed: (p: P) => `The result is committed on branch ${p.branch}; its worktree ${p.path} was removed.`,
      fallback: (p: P) => `${p.to} answered instead of ${p.from} (the provider's fallback model).`,
      budget_switch: (p: P) => `Your token budget has no room for this run on ${p.from}: it runs on ${p.to}, the class's budget model, instead.`,
      budget_iterations: (p: P) => `The token budget left holds ${p.n} of the ${p.asked} iterations asked for: this run stops after ${p.n}.`,
    } satisfies Record<Notice, (p: P) => string> as Record<string, (p: P) => string>,
    /**
     * An execution, worded from the data the sandbox sends (backend/event
     * exec.go): its status, the protections that applied, how it ended
     * (outcome) and what did not apply (notes). Parameters: numbers in
     * decimal, ms, bytes; detail is what the program or system printed.
     */
    exec: {
      status: {
        ok: 'ok',
        error: 'error',
        timeout: 'timed out',
        output_limit: 'too much output',
        memory: 'out of memory',
        killed: 'stopped',
        sandbox_error: 'sandbox error',
      } satisfies Record<ExecStatus, string> as Record<string, string>,
      protections: {
        files: 'files',
        network: 'network',
        processes: 'processes',
        memory: 'memory',
        signals: 'signals',
      } satisfies Record<Protection, string> as Record<string, string>,
      protectionHints: {
        files: 'Writes outside the run folder and reads of your private files are blocked',
        network: 'The code cannot open internet connections',
        processes: 'The number of processes is bounded and none outlives the run',
        memory: 'One memory limit for the whole run',
        signals: 'The code cannot signal or trace loopforge',
      } satisfies Record<Protection, string> as Record<string, string>,
      applied: 'applied',
      missing: 'not applied',
      outcome: {
        ok: () => 'ran cleanly',
        exit: (p: P) => detailed(`exit ${p.exit}`, p),
        signal: (p: P) => detailed(`signal: ${p.signal}`, p),
        timeout: (p: P) => (p.ms ? `timed out after ${seconds(Number(p.ms) / 1000)}` : 'timed out'),
        cpu_limit: (p: P) => `CPU time limit exceeded${p.seconds ? ` (${seconds(Number(p.seconds))})` : ''}`,
        output_limit: (p: P) => (p.bytes ? `output limit (${bytes(Number(p.bytes))}) exceeded` : 'output limit exceeded'),
        memory: (p: P) => detailed('memory limit exceeded', p),
        oom_killed: () => 'memory limit exceeded: killed by the out-of-memory killer',
        killed: () => 'stopped (cancelled)',
        sandbox: (p: P) => detailed('sandbox error', p),
      } satisfies Record<Outcome, (p: P) => string> as Record<string, (p: P) => string>,
      notes: {
        no_files: (p: P) =>
          osName(p.os)
            ? `No file-system isolation: the code can read and change your files (loopforge has none on ${osName(p.os)}).`
            : 'No file-system isolation: the code can read and change your files (install bubblewrap, or use Linux 5.13+ with Landlock).',
        network_allowed: () => 'Network access allowed for this run.',
        no_network: (p: P) =>
          osName(p.os)
            ? `No network isolation: the code can reach the network (loopforge has none on ${osName(p.os)}).`
            : 'No network isolation: the code can reach the network (install bubblewrap).',
        cgroup_failed: (p: P) => detailed('Cgroup limits not applied', p),
        cgroup_partial: (p: P) => {
          const missing = (p.controllers ?? '').split(',').filter(Boolean)
          const effects = missing.map((c) =>
            c === 'pids'
              ? p.nproc
                ? 'processes are bounded by RLIMIT_NPROC only'
                : 'the number of processes is not bounded'
              : c === 'memory'
                ? 'memory is limited per process only'
                : 'CPU use is not capped (the timeout still applies)',
          )
          return `The run’s cgroup has no ${missing.join(', ')} controller: ${effects.join('; ')} (see loopforge doctor).`
        },
        cgroup_joined: () =>
          'The run joined its cgroup as it started instead of being born in it: this machine kills a process born into a new cgroup (see loopforge doctor).',
        no_namespace: (p: P) => {
          const why: Record<string, string> = {
            apparmor: 'AppArmor restricts unprivileged user namespaces here (kernel.apparmor_restrict_unprivileged_userns = 1) and no profile lets bwrap create them',
            userns_disabled: 'unprivileged user namespaces are turned off here (user.max_user_namespaces or kernel.unprivileged_userns_clone)',
            userns_refused: 'the kernel refuses bwrap a user namespace here',
            bwrap_setuid: 'bwrap is setuid root, which loopforge does not use',
          }
          const level = p.level ? `the ${p.level} level` : 'a weaker level'
          return `No namespace isolation: ${why[p.reason ?? ''] ?? 'bubblewrap cannot start its sandbox here'}, so the run had ${level} (see loopforge doctor for the fix).`
        },
        process_limit: (p: P) => `The process limit (${p.limit}) was reached.`,
        images_too_many: (p: P) => `${p.n} more pictures not kept (at most ${p.max} per run)`,
        image_too_large: (p: P) => `${p.name}: ${bytes(Number(p.bytes))}, over the ${bytes(Number(p.max))} limit for one picture`,
        images_total: (p: P) => `${p.name}: not kept, the run’s pictures would pass ${bytes(Number(p.max))}`,
        image_unreadable: (p: P) => detailed(p.name ?? '', p),
      } satisfies Record<Note, (p: P) => string> as Record<string, (p: P) => string>,
    },
  },

  compare: {
    title: (n: number) => `Comparison of ${n} providers`,
    cancel: 'Cancel',
    cancelAll: 'Cancel all',
    rerun: 'Re-run',
    rerunWorkspace: 'Start a new comparison to try again: each provider needs a fresh worktree.',
    workspaceNote: 'Each provider works in its own git worktree and branch. To try again, start a new comparison.',
    rerunFailed: 'The re-run did not start',
    startFailed: 'The comparison did not start',
    table: 'Comparison',
    loadingTable: 'Loading the comparison…',
    tableFailed: 'Could not load the comparison',
    waitingTable: 'The table appears when every column has finished.',
    provider: 'Provider',
    status: 'Status',
    iterations: 'Iterations',
    toSuccess: 'To success',
    wall: 'Wall time',
    firstToken: 'First token',
    tokensIn: 'Tokens in',
    tokensOut: 'Tokens out',
    cost: 'Cost',
    lines: 'Lines',
    exitCode: 'Exit',
    unknown: '—',
    best: 'best',
    chart: 'Time and iterations',
    diff: 'Diff of the last scripts',
    noScript: '(no script)',
    left: 'Left',
    right: 'Right',
    open: 'Open comparison',
    opened: 'This session is a comparison.',
  },

  exports: {
    label: 'Export',
    formats: {
      py: 'Python script (.py)',
      zip: 'All scripts + summary (.zip)',
      md: 'Handout (Markdown)',
      html: 'Handout (HTML)',
      ipynb: 'Jupyter notebook',
      json: 'Session (JSON)',
    } as Record<string, string>,
    /** A workspace run's result is a git patch (still format py). */
    patch: 'Patch (.patch)',
    /** The final script of a shell or Node.js run (still format py). */
    scriptSh: 'Shell script (.sh)',
    scriptJs: 'JavaScript (.js)',
    zipPatches: 'All patches + summary (.zip)',
    saving: 'Saving…',
    saved: (path: string) => `Saved to ${path}`,
    cancelled: 'Not saved.',
    failed: 'Export failed',
    noCode: 'This run produced no code to export; the handout and the JSON still show what happened.',
  },

  stats: {
    title: 'Statistics',
    refresh: 'Refresh',
    loading: 'Computing…',
    failed: 'Could not compute the statistics',
    empty: 'No finished runs yet.',
    provider: 'Provider',
    model: 'Model',
    total: 'All runs',
    runs: 'Runs',
    successes: 'Successes',
    failures: 'Failures',
    cancelled: 'Cancelled',
    timeouts: 'Timeouts',
    successRate: 'Success rate',
    avgDuration: 'Avg duration',
    medianDuration: 'Median',
    avgIterations: 'Avg iter. to success',
    tokens: 'Tokens in / out',
    cost: 'Cost',
    chart: 'Success rate and average duration',
  },

  banner: {
    success: (n: number) => `Success after ${n} iteration${n === 1 ? '' : 's'}`,
    limit_reached: (n: number) => `Iteration limit reached (${n}) without working code`,
    error: 'The run failed',
    cancelled: 'Cancelled — the run was stopped',
    interrupted: 'Interrupted — loopforge stopped while this run was going',
    unknown: (s: string) => `Finished: ${s}`,
    providerSaid: 'The provider said:',
    guardStopped: 'Stopped to protect the repository:',
    retry: 'Try this iteration again',
    retryTitle: 'A new run goes on from where this one stopped: the same prompt, the same thread, the iterations left.',
    retrying: 'Starting…',
    retryFailed: 'It could not start:',
  },

  history: {
    title: 'History',
    search: 'Search sessions',
    searchPlaceholder: 'Search prompts and titles…',
    loading: 'Loading sessions…',
    empty: 'No sessions yet. Runs you start appear here.',
    noMatch: (q: string) => `No session matches “${q}”.`,
    loadFailed: 'Could not load the history',
    openFailed: 'Could not open this session',
    select: 'Open a session on the left to replay it step by step.',
    runs: (n: number) => `${n} run${n === 1 ? '' : 's'}`,
    noRuns: 'This session has no runs.',
    prompt: 'Prompt',
    followUp: 'Continue with a follow-up prompt',
    followUpPlaceholder: 'e.g. Now add comments in Portuguese and a small test.',
    continue: 'Continue',
    continueWith: 'Continue with',
    continueEach: (n: number) => (n === 1 ? 'this provider goes on with its own thread' : `each of the ${n} goes on with its own thread`),
    continueNone: 'tick at least one provider',
    continueCompare: (n: number) => `Continue all ${n}`,
    delete: 'Delete session',
    confirmDelete: 'Delete this session and all its runs? This cannot be undone.',
    confirm: 'Delete',
    keep: 'Keep',
    deleteFailed: 'Could not delete',
    refresh: 'Refresh',
  },

  status: {
    starting: 'starting',
    running: 'running',
    success: 'success',
    limit_reached: 'limit reached',
    error: 'error',
    cancelled: 'cancelled',
    interrupted: 'interrupted',
  } as Record<string, string>,

  /**
   * Errors by their stable code (backend/service/errclass.go, loop.Format*):
   * the backend sends the code, its parameters and English text; the text
   * shown is chosen here, and an unknown code shows the backend's text.
   */
  errors: {
    ...classEn.errors,
    ...testsEn.errors,
    internal: (p: P) => `Something went wrong in loopforge: ${p.detail}`,
    'request.invalid': (p: P) => `Invalid request: ${p.detail}`,
    'request.prompt_empty': () => 'The prompt is empty.',
    'request.prompt_too_long': (p: P) =>
      `The prompt is too long: ${integer(Number(p.bytes))} bytes (${integer(Number(p.chars))} characters); a run takes at most ${bytes(Number(p.max))} (${integer(Number(p.max))} bytes).`,
    'request.too_large': (p: P) => `The request is larger than ${bytes(Number(p.max))}, the most loopforge accepts.`,
    'request.max_iterations': (p: P) => `The iteration limit must be between 1 and ${p.max} (got ${p.n}).`,
    'request.timeout': (p: P) => `The time limit must be positive and at most ${p.max} (got ${p.value}).`,
    'request.language': (p: P) => `Unsupported language “${p.language}”: use Python, Shell or JavaScript (Node.js).`,
    'request.mode': (p: P) => `Unknown mode “${p.mode}”: script or workspace.`,
    'request.needs_workspace': () => 'A task, validation commands and an auditor need workspace mode.',
    'request.compare_too_few': (p: P) => `A comparison needs at least two providers (got ${p.n}).`,
    'request.compare_twice': (p: P) => `Provider ${p.provider} is listed twice.`,
    'request.compare_rerun': () => 'A provider of a workspace comparison cannot be re-run in that session: start a new comparison.',
    'request.compare_session': () => 'That session is not a comparison: continue it with one provider.',
    'request.retry_running': () => 'That run is still going: it can be tried again once it ends.',
    'request.retry_workspace': () => 'A run in workspace mode cannot be tried again from where it stopped: start the task again.',
    'request.settings': (p: P) => `Unusable run settings: ${p.detail}`,
    'request.bad_input': (p: P) => `The request could not be read: ${p.detail}`,
    'request.no_endpoint': (p: P) => `No such API endpoint: ${p.method} ${p.path}`,
    'request.token': () => 'Missing or wrong access token: open the URL that loopforge serve printed.',
    'request.origin': () => 'Cross-origin request refused.',
    'config.invalid': (p: P) => `Configuration problem: ${p.detail}`,
    'provider.unknown': (p: P) => `Unknown provider “${p.provider}”.`,
    not_found: () => 'That session or run does not exist (any more).',
    'not_found.run': () => 'That run does not exist (any more).',
    'workdir.empty': () => 'The folder path is empty.',
    'workdir.missing': (p: P) => `${p.path} does not exist.`,
    'workdir.not_folder': (p: P) => `${p.path} is a file, not a folder.`,
    'workdir.unreadable': (p: P) => `Cannot open ${p.path}: ${p.detail}`,
    'workspace.no_workdir': () => 'Workspace mode needs a project folder.',
    'workspace.cannot_edit': (p: P) => `Provider ${p.provider} (${p.kind}) cannot edit files: it has neither its own file tools nor tool calling.`,
    'workspace.not_repo': (p: P) => `The project folder is not a usable git repository: ${p.detail}`,
    'workspace.no_commit': (p: P) => `The repository in ${p.dir} has no commit yet: commit once so loopforge can branch from it.`,
    'workspace.dirty': (p: P) => `The project folder ${p.dir} has uncommitted changes (${p.changes}): commit or stash them first, so loopforge's edits stay apart from yours.`,
    'workspace.tampered': (p: P) => `The repository's git control files changed while ${p.actor || 'the run'} was working (${p.files}): loopforge will not run git on ${p.dir}; inspect them first.`,
    'workspace.branch_moved': (p: P) => `HEAD moved off the run's branch ${p.branch} (it is now on ${p.head || 'a detached HEAD'}): loopforge will not commit there; check out ${p.branch} in ${p.dir} and inspect the changes first.`,
    'export.format': (p: P) => `Unknown export format “${p.format}”.`,
    'export.lang': (p: P) => `Unknown export language “${p.lang}”.`,
    'export.tz': (p: P) => `Unknown time zone “${p.tz}” for the export's dates.`,
    'export.no_code': () => 'This run produced no code to export; the handout and the JSON still show what happened.',
    'export.not_runnable': () => 'The run’s result is a patch, not a program: export it as a .patch, a handout, a zip or JSON.',
    'sandbox.unavailable': (p: P) => `Generated code cannot run on this machine (loopforge doctor says why): ${p.detail}`,
    'provider.missing_key': (p: P) => `${p.provider}: no API key. Set ${p.env} in the environment or in a .env file.`,
    'provider.missing_env': (p: P) => `${p.provider}: the CLI needs the environment variable ${p.env}.`,
    'provider.cli_not_found': (p: P) => `${p.provider}: the CLI “${p.binary}” is not installed.${p.hint ? ` ${p.hint}` : ''}`,
    'provider.cli_failed': (p: P) => `${p.provider}: the CLI failed (exit code ${p.exit})${p.message ? `: ${p.message}` : '.'}`,
    'provider.cli_output': (p: P) => `${p.provider}: the CLI printed something that is not one of its events (line ${p.line}).`,
    'provider.timeout': (p: P) =>
      p.limit ? `${p.provider}: no complete answer within ${p.limit}. To wait longer, raise ${p.key} in the “${p.provider}” profile of loopforge.yml.` : `${p.provider}: the call timed out.`,
    'provider.auth': (p: P) => `${p.provider}: the API key was rejected${p.status ? ` (HTTP ${p.status})` : ''}${p.env ? `; check ${p.env}` : ''}.${said(p)}`,
    'provider.forbidden': (p: P) =>
      `${p.provider}: the key is valid but may not use ${p.model ? `model ${p.model}` : 'this model'} (or not from this region): enable the model for it, or pick another.${said(p)}`,
    'provider.rate_limit': (p: P) =>
      `${p.provider}: too many requests${p.attempts ? ` (tried ${p.attempts} times)` : ''}${p.retry_after ? `; the server asks to wait ${p.retry_after}` : ''}.${said(p)}`,
    'provider.server': (p: P) => `${p.provider}: the provider's server failed${p.status ? ` (HTTP ${p.status})` : ''}${p.attempts ? ` ${p.attempts} times` : ''}.${said(p)}`,
    'provider.bad_request': (p: P) => `${p.provider}: the request was rejected${p.status ? ` (HTTP ${p.status})` : ''}.${said(p)}`,
    'provider.unreachable': (p: P) => `${p.provider}: cannot reach ${p.url}.${said(p)}`,
    'provider.protocol': (p: P) => `${p.provider}: the answer did not follow the provider's format.${said(p)}`,
    'provider.error': (p: P) => `${p.provider}: the call failed.${said(p)}`,
    'provider.refused': (p: P) => `${p.provider}: the model refused to answer${p.category ? ` (${p.category})` : ''}.${said(p)}`,
    'provider.interrupted': (p: P) =>
      `${p.provider}: the connection${p.url ? ` to ${p.url}` : ''} broke off in the middle of the answer${Number(p.received) > 0 ? ` (after ${p.received} characters)` : ''}: the model's server stopped or the network dropped. Trying the iteration again may work.${said(p)}`,
    'provider.token_cap': (p: P) =>
      p.unsupported
        ? `${p.provider}: the server does not accept the field ${p.field} for the answer's token limit: set max_tokens_field: ${p.other} in the “${p.provider}” profile of loopforge.yml.${said(p)}`
        : `${p.provider}: the server refused the answer's token limit (${p.field}: ${p.value}): lower max_output_tokens${p.other ? `, or set max_tokens_field: ${p.other} if it wants that field,` : ''} in the “${p.provider}” profile of loopforge.yml.${said(p)}`,
    'provider.model_not_found': (p: P) =>
      `${p.provider}: the model ${p.model || 'asked for'} does not exist or is no longer offered to this key${p.status ? ` (HTTP ${p.status})` : ''}. ` +
      (p.listed
        ? p.models
          ? `Models this key can use: ${modelsNamed(p.models, (n) => `… and ${n} more`)}. `
          : 'This key can use no models. '
        : 'The models this key can use could not be listed just now (see Models beside the provider, or run loopforge providers --models). ') +
      `Pick another with Models beside the provider, or set model: in the “${p.provider}” profile of loopforge.yml.${said(p)}`,
    'provider.no_model_list': (p: P) => `${p.provider}: a coding CLI has no models list to ask; its own documentation names its models.`,
    'run.cancelled': () => 'Stopped by the user.',
    'run.shutdown': () => 'loopforge was shutting down.',
    'history.corrupt': (p: P) =>
      `${p.damage === 'not_a_database' ? `The history file ${p.path} is not a loopforge history.` : p.damage === 'empty' ? `The history file ${p.path} is empty, although a history was kept there.` : `The history file ${p.path} is damaged${p.detail ? ` (${p.detail})` : ''}.`} It was left as it is. ` +
      (p.backup
        ? `The newest backup is ${p.backup}: to go back to it, move ${p.path} aside and copy the backup in its place. `
        : 'There is no backup of it. ') +
      `To start a fresh history, move ${p.path} (and any ${p.path}-wal beside it) to another folder, then start loopforge again.`,
    'history.disk_full': (p: P) =>
      `The disk holding the history (folder ${p.dir}) is full: free some space there.`,
    'format.empty': () => 'The answer was empty.',
    'format.invalid_json': (p: P) => `The answer was not valid JSON (${p.detail}).`,
    'format.empty_field': () => 'The JSON answer had an empty “code” field.',
    'format.unclosed': () => 'The code block was opened but never closed (was the answer cut off?).',
    'format.other_block': (p: P) => `The answer had a code block marked ${p.found} but none marked ${p.fence}.`,
    'format.no_block': (p: P) => `The answer had no code block marked ${p.fence}.`,
    'format.empty_block': (p: P) => `The ${p.fence} code block was empty.`,
  } as Record<string, (p: P) => string>,

  crash: {
    title: 'Something went wrong in the page',
    hint: 'Your runs continue on the server. Reload to get back to them.',
    reload: 'Reload',
  },
}

export type Strings = typeof en

export type Lang = 'en' | 'pt'

const pt: Strings = {
  appTagline: 'Veja modelos de IA escreverem, executarem e corrigirem código',
  nav: { run: 'Executar', history: 'Histórico', stats: 'Estatísticas', class: classPt.tab },
  classroom: classPt,
  tests: testsPt,
  firstRun: firstRunPt,
  language: { label: 'Idioma', en: 'English', pt: 'Português' },
  theme: {
    label: 'Tema',
    system: 'Tema do sistema',
    light: 'Tema claro',
    dark: 'Tema escuro',
  },
  projector: { on: 'Modo projetor ligado', off: 'Modo projetor' },

  stage: {
    bar: 'A execução em cena',
    expand: 'Editar prompt',
    expandTitle: 'Mostrar o formulário completo',
    collapse: 'Recolher',
    collapseTitle: 'Recolher o formulário em uma linha para a execução ocupar a tela',
    keys: 'Teclas: Ctrl+Enter executa · Esc para · ← → iterações · F acompanha ao vivo · P projetor',
    followTitle: 'Voltar a acompanhar a iteração mais nova (F)',
    unfollowTitle: 'Manter esta iteração na tela (F)',
  },

  connection: {
    connecting: 'Conectando às atualizações ao vivo…',
    reconnecting: (attempt: number, seconds: number) =>
      `Atualizações ao vivo perdidas — reconectando${seconds >= 1 ? ` em ${seconds}s` : ''} (tentativa ${attempt})`,
    paused: 'Atualizações ao vivo pausadas: reconectando. Nada se perde; a execução continua no servidor.',
  },

  workdir: {
    label: 'Pasta',
    none: 'nenhuma escolhida',
    change: 'Alterar',
    choose: 'Escolher pasta…',
    dropHint: 'ou solte uma pasta na janela',
    placeholder: '/caminho/para/uma/pasta',
    set: 'Definir',
    cancel: 'Cancelar',
    saving: 'Verificando…',
    webHint: 'Digite o caminho completo de uma pasta na máquina que executa o loopforge.',
    browse: 'Procurar…',
    browseTitle: 'Escolher uma pasta na máquina que executa o loopforge',
    pickerTitle: 'Escolher a pasta de trabalho',
    pickerHint: 'Pastas na máquina que executa o loopforge. Abra uma e depois use-a.',
    location: 'Pasta atual',
    up: 'Subir',
    upTitle: 'Ir para a pasta acima',
    subfolders: 'Subpastas',
    loading: 'Carregando…',
    noSubfolders: 'Nenhuma subpasta aqui.',
    use: 'Usar esta pasta',
    dropped: (name: string) =>
      `Você soltou “${name}”. O navegador não diz à página onde fica nesta máquina uma pasta solta nela: escolha-a com Procurar…, ou digite o caminho em Alterar.`,
    droppedNoBrowse: (name: string) => `Você soltou “${name}”. O navegador não diz à página onde fica nesta máquina uma pasta solta nela: digite o caminho em Alterar.`,
    dismiss: 'Fechar',
  },

  run: {
    prompt: 'Prompt',
    promptPlaceholder: 'Descreva o programa que o modelo deve escrever — ou escolha um modelo pronto.',
    preset: 'Modelo pronto',
    presetNone: 'Escolha um modelo pronto…',
    providers: 'Provedores',
    compareHint: 'Marque vários para compará-los lado a lado.',
    providersLoading: 'Procurando provedores…',
    providersError: 'Não foi possível listar os provedores',
    noProviders: 'Nenhum provedor configurado.',
    noReadyProvider: 'Nenhum provedor está pronto. Corrija um dos motivos abaixo e pressione Tentar de novo.',
    notReady: 'não está pronto',
    keyRejected: (time: string, why: string) => `Chave recusada às ${time}: ${why}`,
    keyRejectedCoded: (time: string, p: P) =>
      `Chave recusada às ${time}${p.status ? ` (HTTP ${p.status})` : ''}${p.env ? `: verifique ${p.env}` : ''}.${said(p)}`,
    notReadyCount: (n: number) => `${n} não ${n === 1 ? 'está pronto' : 'estão prontos'} — por quê?`,
    models: 'Modelos',
    modelsTitle: (provider: string) => `Os modelos que a chave de ${provider} pode usar (pergunta à API dele)`,
    modelsLoading: (provider: string) => `Perguntando a ${provider} os seus modelos…`,
    modelsError: 'Não foi possível listar os modelos',
    modelsCount: (n: number) => (n === 1 ? '1 modelo que esta chave pode usar' : `${n} modelos que esta chave pode usar`),
    modelsNone: 'Esta chave não pode usar nenhum modelo.',
    modelsFilter: 'Filtrar os modelos',
    modelsNoMatch: 'Nenhum modelo corresponde.',
    modelUse: (model: string) => `Rodar com ${model}`,
    modelProfile: (model: string) => `Voltar ao modelo do perfil (${model})`,
    modelPicked: 'escolhido',
    modelPickedTitle: (model: string) => `Escolhido na lista de modelos; o modelo do perfil é ${model}`,
    modelAlone: 'Um modelo escolhido numa lista é usado quando esse provedor roda sozinho; uma comparação usa o modelo de cada perfil.',
    isDefault: 'padrão',
    retry: 'Tentar de novo',
    settings: 'Configurações',
    maxIterations: 'Máx. de iterações',
    reflect: 'Reflexão',
    reflectOn: 'ligada',
    reflectOff: 'desligada',
    timeout: 'Tempo limite (s)',
    language: 'Linguagem',
    languages: { python: 'Python', sh: 'Shell', node: 'JavaScript (Node.js)' },
    stdin: 'Entrada (stdin, opcional)',
    stdinPlaceholder: 'O que o programa lê com input(), uma resposta por linha',
    stdinHint: 'Entregue ao programa na entrada padrão (até 64 KiB), seguida de fim de arquivo. Guardada com a execução.',
    start: 'Executar',
    compare: (n: number) => `Comparar ${n}`,
    starting: 'Iniciando…',
    stop: 'Parar',
    stopping: 'Parando…',
    needPrompt: 'Escreva um prompt ou escolha um modelo pronto primeiro.',
    promptSize: (size: number, chars: number, max: number) => `${bytes(size)} de ${bytes(max)} (${integer(chars)} caracteres)`,
    promptTooLong: (size: number, chars: number, max: number) =>
      `O prompt é longo demais: ${integer(size)} bytes (${integer(chars)} caracteres); uma execução aceita no máximo ${bytes(max)} (${integer(max)} bytes). Encurte-o primeiro.`,
    needProvider: 'Escolha primeiro um provedor pronto.',
    startFailed: 'A execução não começou',
    empty: 'Pressione Executar para ver o ciclo: gerar → executar → refletir → corrigir.',
    mode: 'Modo',
    modes: { script: 'Script', workspace: 'Projeto' },
    modeHints: {
      script: 'O modelo escreve um script; o loopforge o executa na sandbox.',
      workspace: 'O modelo edita os arquivos de um projeto (um repositório git); seus comandos verificam cada tentativa, e uma mudança aprovada é registrada (commit) em um novo branch.',
    },
    workspace: 'Projeto',
    project: 'Pasta do projeto',
    projectNone: 'Nenhuma pasta escolhida',
    projectHint: 'Um repositório git sem mudanças pendentes. O trabalho acontece em um novo branch loopforge/…',
    projectChoose: 'Escolher…',
    validate: 'Comandos de validação',
    validateHint: 'Um comando de shell por linha, executado na pasta do projeto após cada tentativa.',
    validatePlaceholder: 'pytest -q',
    auditor: 'Revisor',
    auditorNone: 'Nenhum',
    auditorNotReady: (name: string) => `${name} (não está pronto)`,
    auditorHint: 'Outro modelo revisa uma mudança que passou na validação.',
    inputs: 'Entradas (opcional)',
    inputsHint: 'Caminhos no projeto, um por linha: arquivos são lidos para o prompt, pastas aparecem como árvore.',
    inputsPlaceholder: 'calc.py\ntests/',
    constraints: 'Restrições (opcional)',
    constraintsHint: 'Uma por linha.',
    constraintsPlaceholder: 'Não altere os testes.',
    needWorkdir: 'Escolha primeiro a pasta do projeto (um repositório git): o modo projeto edita arquivos nela.',
    allowNetwork: 'Permitir rede nesta execução',
    allowNetworkHint:
      'O código gerado (e, no modo projeto, os comandos) poderá acessar a internet e a sua rede local. Só para a próxima execução: desliga de novo quando ela começa.',
    loadingValue: '…',
    sandbox: {
      label: 'Sandbox',
      loading: 'Sandbox: …',
      memory: (size: string) => `${size} de memória`,
      processes: (n: number) => `${n} ${n === 1 ? 'processo' : 'processos'}`,
      output: (size: string) => `${size} de saída`,
      noNetwork: 'sem rede',
      network: 'rede permitida',
      networkNotIsolated: 'rede não isolada neste sistema',
      levels: {
        basic: 'basic: grupo de processos próprio, limites de recursos, pasta temporária privada, ambiente limpo',
        job: 'job (Windows): o código e tudo o que ele inicia rodam num único job object, encerrados juntos, com limite de processos e de memória; sem isolamento de arquivos nem de rede',
        landlock: 'landlock: arquivos somente leitura fora da pasta da execução, sem internet, sem sinais para o app',
        namespace: 'namespace (bubblewrap): rede, processos e visão de arquivos próprios; só as pastas do sistema e a pasta da execução ficam visíveis',
      } as Record<string, string>,
      unavailable: 'Sandbox indisponível: o código gerado não pode ser executado nesta máquina (loopforge doctor diz por quê).',
      details: (l: { memory: string; processes: number; output: string; fileSize: string; openFiles: number; cpus: number }) =>
        `Cada execução tem no máximo ${l.memory} de memória, ${l.processes} processos e threads, ${l.output} de saída por fluxo, arquivos de até ${l.fileSize}, ${l.openFiles} arquivos abertos e ${l.cpus} CPU${l.cpus === 1 ? '' : 's'}. Configure em limits: no loopforge.yml.`,
      commands: (t: string) => `Comandos de validação: até ${t} cada, na sandbox.`,
      unsandboxed: (t: string) =>
        `Os comandos de validação rodam fora da sandbox, como você: seus arquivos e a rede ficam ao alcance deles (workspace: {sandbox: false} no loopforge.yml). Até ${t} cada.`,
    },
  },

  live: {
    iteration: 'Iteração',
    iterationOf: (n: number, max: number) => (max > 0 ? `Iteração ${n} de ${max}` : `Iteração ${n}`),
    waiting: 'Aguardando o primeiro evento…',
    elapsed: 'Decorrido',
    tokens: 'Tokens',
    tokensInOut: (i: string, o: string) => `${i} entrada · ${o} saída`,
    modelOutput: 'Saída do modelo',
    generation: 'Geração',
    reflection: 'Reflexão',
    noReflection: 'Sem reflexão nesta iteração.',
    reflectionOff: 'A reflexão está desligada nesta execução.',
    code: 'Código',
    finalCode: 'Código final',
    lastAttempt: (n: number) => `Última tentativa (#${n})`,
    diff: (n: number) => `Diferença vs #${n}`,
    noCodeYet: 'Ainda sem código.',
    noCode: 'A resposta não tinha código utilizável.',
    copy: 'Copiar',
    copied: 'Copiado',
    output: 'Execução',
    running: 'Executando o código…',
    notRunYet: 'Ainda não executado.',
    stdout: 'saída (stdout)',
    stderr: 'erros (stderr)',
    stdin: 'Entrada (stdin)',
    liveCapped: 'Saída longa: o restante aparece quando o programa terminar (o início e o fim são mantidos).',
    unfinished: 'O programa não terminou: isto é o que ele imprimiu.',
    exitCode: 'código de saída',
    duration: 'duração',
    isolation: 'isolamento',
    protections: 'proteções',
    signal: 'sinal',
    truncated: 'A saída era longa: só o início e o fim foram mantidos.',
    pictures: 'Imagens',
    pictureLoading: 'Carregando a imagem…',
    pictureFailed: 'Não foi possível carregar esta imagem.',
    pictureLarger: 'Mostrar em tamanho real',
    pictureSmaller: 'Mostrar menor',
    picturesSkipped: 'Deixadas de fora:',
    formatError: 'Resposta inutilizável',
    prev: 'Anterior',
    next: 'Próxima',
    follow: 'Acompanhar ao vivo',
    step: (n: number, total: number) => `Passo ${n} de ${total}`,
    phase: {
      generating: 'escrevendo',
      executing: 'executando',
      validating: 'validando',
      auditing: 'revisando',
      reflecting: 'refletindo',
      success: 'passou',
      error: 'falhou',
      stopped: 'parada',
    },
    checks: (passed: number, total: number) => `${passed}/${total} verificações`,
    networkBadge: 'Rede permitida',
    networkBadgeTitle: 'O usuário permitiu que o código desta execução acessasse a rede.',
    workspaceBadge: 'Projeto',
    tools: 'Chamadas de ferramentas',
    noTools: 'Ainda sem chamadas de ferramentas.',
    noToolsDone: 'O modelo não chamou ferramentas nesta tentativa.',
    toolOk: 'ok',
    toolFailed: 'falhou',
    toolArgs: 'Argumentos',
    toolOutput: 'Saída (devolvida ao modelo)',
    noOutput: '(vazia)',
    validation: 'Validação',
    validating: 'Executando os comandos de validação…',
    notValidated: 'Ainda não validado.',
    notValidatedError: 'Não validado: a tentativa falhou antes dos comandos.',
    noValidation: 'Sem comandos de validação: uma resposta utilizável conta como pronta.',
    passed: 'passou',
    failed: 'falhou',
    timedOut: 'tempo esgotado',
    audit: 'Revisão',
    auditing: 'O revisor está analisando a mudança…',
    approved: 'Aprovada pelo revisor',
    rejected: 'Rejeitada pelo revisor',
    notAudited: 'Não revisada: só uma mudança que passa na validação é revisada.',
    project: 'Projeto',
    checksLabel: 'Validação',
    auditorLabel: 'Revisor',
    none: 'nenhum',
    branch: 'Branch',
    worktree: 'Worktree',
    metadata: 'Registro da execução',
    committed: 'Commit feito',
    uncommitted: (branch: string) => `Mudanças deixadas sem commit no branch ${branch} para inspeção.`,
    uncommittedNoBranch: 'Mudanças deixadas sem commit na pasta do projeto para inspeção.',
    workingOn: 'Trabalhando no branch',
    changes: 'Mudanças (git diff)',
    onBranch: 'no branch',
    fullMessage: 'Mensagem completa',
    argLines: (n: number) => `${n} linhas`,
    argChars: (n: number) => `${n} caracteres`,
    noOutputAtAll: 'Sem saída.',
    stillStopping: 'Ainda parando… aguardando a confirmação do servidor.',
    cancelFailed: 'Falha ao parar',
    streamFailed: 'As atualizações ao vivo desta execução falharam',
    logs: 'Avisos',
    notices: {
      retry: (p: P) =>
        `${p.provider}: ${retryReason(p, { rate_limit: 'pedidos demais', server: 'erro do servidor', request_timeout: 'o pedido expirou', connection_closed: 'a conexão caiu antes do início da resposta' })}, tentando de novo ${Number(p.wait_ms) > 0 ? `em ${seconds(Number(p.wait_ms) / 1000)}` : 'agora'} (tentativa ${p.retry}/${p.max})`,
      reflection_empty: () => 'A reflexão veio vazia; tentando de novo só com o relatório do erro.',
      no_change: () => 'A validação passou, mas nada mudou: nenhum commit.',
      metadata_failed: (p: P) => `Não foi possível gravar o registro da execução: ${p.detail}`,
      sandbox: (p: P) => `Sandbox: ${execNote({ code: p.note ?? '', params: p })}`,
      worktree_kept: (p: P) => `A worktree ${p.path} (branch ${p.branch}) foi mantida para inspeção; remova-a com: git worktree remove --force ${p.path}`,
      worktree_meta_failed: (p: P) => `A worktree ${p.path} foi mantida: o registro da execução não pôde ser copiado: ${p.detail}`,
      worktree_remove_failed: (p: P) => `Não foi possível remover a worktree ${p.path}: ${p.detail}`,
      worktree_removed: (p: P) => `O resultado está no commit do branch ${p.branch}; a worktree ${p.path} foi removida.`,
      fallback: (p: P) => `${p.to} respondeu no lugar de ${p.from} (o modelo reserva do provedor).`,
      budget_switch: (p: P) => `Seu orçamento de tokens não comporta esta execução em ${p.from}: ela roda em ${p.to}, o modelo econômico da turma.`,
      budget_iterations: (p: P) => `O orçamento de tokens que resta comporta ${p.n} das ${p.asked} iterações pedidas: esta execução para depois de ${p.n}.`,
    },
    exec: {
      status: {
        ok: 'ok',
        error: 'erro',
        timeout: 'tempo esgotado',
        output_limit: 'saída demais',
        memory: 'sem memória',
        killed: 'parada',
        sandbox_error: 'erro da sandbox',
      },
      protections: {
        files: 'arquivos',
        network: 'rede',
        processes: 'processos',
        memory: 'memória',
        signals: 'sinais',
      },
      protectionHints: {
        files: 'Escritas fora da pasta da execução e leituras dos seus arquivos privados são bloqueadas',
        network: 'O código não consegue abrir conexões com a internet',
        processes: 'O número de processos é limitado e nenhum sobrevive à execução',
        memory: 'Um só limite de memória para a execução inteira',
        signals: 'O código não consegue enviar sinais ao loopforge nem rastreá-lo',
      },
      applied: 'aplicada',
      missing: 'não aplicada',
      outcome: {
        ok: () => 'rodou sem erros',
        exit: (p: P) => detailed(`código de saída ${p.exit}`, p),
        signal: (p: P) => detailed(`sinal: ${p.signal}`, p),
        timeout: (p: P) => (p.ms ? `tempo esgotado após ${seconds(Number(p.ms) / 1000)}` : 'tempo esgotado'),
        cpu_limit: (p: P) => `limite de tempo de CPU excedido${p.seconds ? ` (${seconds(Number(p.seconds))})` : ''}`,
        output_limit: (p: P) => (p.bytes ? `limite de saída (${bytes(Number(p.bytes))}) excedido` : 'limite de saída excedido'),
        memory: (p: P) => detailed('limite de memória excedido', p),
        oom_killed: () => 'limite de memória excedido: o kernel encerrou o programa por falta de memória',
        killed: () => 'parada (cancelada)',
        sandbox: (p: P) => detailed('erro da sandbox', p),
      },
      notes: {
        no_files: (p: P) =>
          osName(p.os)
            ? `Sem isolamento do sistema de arquivos: o código pode ler e alterar seus arquivos (o loopforge não tem nenhum no ${osName(p.os)}).`
            : 'Sem isolamento do sistema de arquivos: o código pode ler e alterar seus arquivos (instale o bubblewrap ou use Linux 5.13+ com Landlock).',
        network_allowed: () => 'Acesso à rede permitido nesta execução.',
        no_network: (p: P) =>
          osName(p.os)
            ? `Sem isolamento de rede: o código pode acessar a rede (o loopforge não tem nenhum no ${osName(p.os)}).`
            : 'Sem isolamento de rede: o código pode acessar a rede (instale o bubblewrap).',
        cgroup_failed: (p: P) => detailed('Limites de cgroup não aplicados', p),
        cgroup_partial: (p: P) => {
          const missing = (p.controllers ?? '').split(',').filter(Boolean)
          const effects = missing.map((c) =>
            c === 'pids'
              ? p.nproc
                ? 'os processos são limitados só pelo RLIMIT_NPROC'
                : 'o número de processos não é limitado'
              : c === 'memory'
                ? 'a memória é limitada só por processo'
                : 'o uso de CPU não tem teto (o tempo limite ainda vale)',
          )
          return `O cgroup da execução não tem o controlador ${missing.join(', ')}: ${effects.join('; ')} (veja loopforge doctor).`
        },
        cgroup_joined: () =>
          'A execução entrou no seu cgroup ao começar, em vez de nascer nele: esta máquina encerra um processo que nasce num cgroup novo (veja loopforge doctor).',
        no_namespace: (p: P) => {
          const why: Record<string, string> = {
            apparmor: 'o AppArmor restringe os namespaces de usuário sem privilégio aqui (kernel.apparmor_restrict_unprivileged_userns = 1) e nenhum perfil permite que o bwrap os crie',
            userns_disabled: 'os namespaces de usuário sem privilégio estão desligados aqui (user.max_user_namespaces ou kernel.unprivileged_userns_clone)',
            userns_refused: 'o kernel recusa ao bwrap um namespace de usuário aqui',
            bwrap_setuid: 'o bwrap é setuid root, e o loopforge não o usa assim',
          }
          const level = p.level ? `o nível ${p.level}` : 'um nível mais fraco'
          return `Sem isolamento por namespaces: ${why[p.reason ?? ''] ?? 'o bubblewrap não consegue iniciar sua sandbox aqui'}; a execução teve ${level} (veja loopforge doctor para a correção).`
        },
        process_limit: (p: P) => `O limite de processos (${p.limit}) foi atingido.`,
        images_too_many: (p: P) => `mais ${p.n} imagens não guardadas (no máximo ${p.max} por execução)`,
        image_too_large: (p: P) => `${p.name}: ${bytes(Number(p.bytes))}, acima do limite de ${bytes(Number(p.max))} por imagem`,
        images_total: (p: P) => `${p.name}: não guardada, as imagens da execução passariam de ${bytes(Number(p.max))}`,
        image_unreadable: (p: P) => detailed(p.name ?? '', p),
      },
    },
  },

  compare: {
    title: (n: number) => `Comparação de ${n} provedores`,
    cancel: 'Cancelar',
    cancelAll: 'Cancelar todos',
    rerun: 'Executar de novo',
    rerunWorkspace: 'Inicie uma nova comparação para tentar de novo: cada provedor precisa de uma worktree nova.',
    workspaceNote: 'Cada provedor trabalha em sua própria worktree e branch do git. Para tentar de novo, inicie uma nova comparação.',
    rerunFailed: 'A nova execução não começou',
    startFailed: 'A comparação não começou',
    table: 'Comparação',
    loadingTable: 'Carregando a comparação…',
    tableFailed: 'Não foi possível carregar a comparação',
    waitingTable: 'A tabela aparece quando todas as colunas terminarem.',
    provider: 'Provedor',
    status: 'Situação',
    iterations: 'Iterações',
    toSuccess: 'Até o sucesso',
    wall: 'Tempo total',
    firstToken: 'Primeiro token',
    tokensIn: 'Tokens entrada',
    tokensOut: 'Tokens saída',
    cost: 'Custo',
    lines: 'Linhas',
    exitCode: 'Saída',
    unknown: '—',
    best: 'melhor',
    chart: 'Tempo e iterações',
    diff: 'Diferença entre os últimos scripts',
    noScript: '(sem script)',
    left: 'Esquerda',
    right: 'Direita',
    open: 'Abrir comparação',
    opened: 'Esta sessão é uma comparação.',
  },

  exports: {
    label: 'Exportar',
    formats: {
      py: 'Script Python (.py)',
      zip: 'Todos os scripts + resumo (.zip)',
      md: 'Apostila (Markdown)',
      html: 'Apostila (HTML)',
      ipynb: 'Notebook Jupyter',
      json: 'Sessão (JSON)',
    } as Record<string, string>,
    patch: 'Patch (.patch)',
    scriptSh: 'Script shell (.sh)',
    scriptJs: 'JavaScript (.js)',
    zipPatches: 'Todos os patches + resumo (.zip)',
    saving: 'Salvando…',
    saved: (path: string) => `Salvo em ${path}`,
    cancelled: 'Não salvo.',
    failed: 'Falha ao exportar',
    noCode: 'Esta execução não produziu código para exportar; a apostila e o JSON ainda mostram o que aconteceu.',
  },

  stats: {
    title: 'Estatísticas',
    refresh: 'Atualizar',
    loading: 'Calculando…',
    failed: 'Não foi possível calcular as estatísticas',
    empty: 'Ainda não há execuções concluídas.',
    provider: 'Provedor',
    model: 'Modelo',
    total: 'Todas as execuções',
    runs: 'Execuções',
    successes: 'Sucessos',
    failures: 'Falhas',
    cancelled: 'Canceladas',
    timeouts: 'Estouros de tempo',
    successRate: 'Taxa de sucesso',
    avgDuration: 'Duração média',
    medianDuration: 'Mediana',
    avgIterations: 'Iter. médias até o sucesso',
    tokens: 'Tokens entrada / saída',
    cost: 'Custo',
    chart: 'Taxa de sucesso e duração média',
  },

  banner: {
    success: (n: number) => `Sucesso após ${n} ${n === 1 ? 'iteração' : 'iterações'}`,
    limit_reached: (n: number) => `Limite de iterações atingido (${n}) sem código funcionando`,
    error: 'A execução falhou',
    cancelled: 'Cancelada — a execução foi parada',
    interrupted: 'Interrompida — o loopforge parou durante esta execução',
    unknown: (s: string) => `Terminada: ${s}`,
    providerSaid: 'O provedor disse:',
    guardStopped: 'Parado para proteger o repositório:',
    retry: 'Tentar esta iteração de novo',
    retryTitle: 'Uma nova execução continua de onde esta parou: o mesmo prompt, a mesma conversa, as iterações que restavam.',
    retrying: 'Iniciando…',
    retryFailed: 'Não foi possível iniciar:',
  },

  history: {
    title: 'Histórico',
    search: 'Buscar sessões',
    searchPlaceholder: 'Buscar prompts e títulos…',
    loading: 'Carregando sessões…',
    empty: 'Ainda não há sessões. As execuções que você iniciar aparecem aqui.',
    noMatch: (q: string) => `Nenhuma sessão corresponde a “${q}”.`,
    loadFailed: 'Não foi possível carregar o histórico',
    openFailed: 'Não foi possível abrir esta sessão',
    select: 'Abra uma sessão à esquerda para repeti-la passo a passo.',
    runs: (n: number) => `${n} ${n === 1 ? 'execução' : 'execuções'}`,
    noRuns: 'Esta sessão não tem execuções.',
    prompt: 'Prompt',
    followUp: 'Continuar com um novo prompt',
    followUpPlaceholder: 'ex.: Agora adicione comentários em português e um pequeno teste.',
    continue: 'Continuar',
    continueWith: 'Continuar com',
    continueEach: (n: number) => (n === 1 ? 'este provedor segue a sua própria conversa' : `cada um dos ${n} segue a sua própria conversa`),
    continueNone: 'marque pelo menos um provedor',
    continueCompare: (n: number) => `Continuar os ${n}`,
    delete: 'Excluir sessão',
    confirmDelete: 'Excluir esta sessão e todas as suas execuções? Isto não pode ser desfeito.',
    confirm: 'Excluir',
    keep: 'Manter',
    deleteFailed: 'Não foi possível excluir',
    refresh: 'Atualizar',
  },

  status: {
    starting: 'iniciando',
    running: 'executando',
    success: 'sucesso',
    limit_reached: 'limite atingido',
    error: 'erro',
    cancelled: 'cancelada',
    interrupted: 'interrompida',
  } as Record<string, string>,

  errors: {
    ...classPt.errors,
    ...testsPt.errors,
    internal: (p: P) => `Algo deu errado no loopforge: ${p.detail}`,
    'request.invalid': (p: P) => `Pedido inválido: ${p.detail}`,
    'request.prompt_empty': () => 'O prompt está vazio.',
    'request.prompt_too_long': (p: P) =>
      `O prompt é longo demais: ${integer(Number(p.bytes))} bytes (${integer(Number(p.chars))} caracteres); uma execução aceita no máximo ${bytes(Number(p.max))} (${integer(Number(p.max))} bytes).`,
    'request.too_large': (p: P) => `O pedido passa de ${bytes(Number(p.max))}, o máximo que o loopforge aceita.`,
    'request.max_iterations': (p: P) => `O limite de iterações deve estar entre 1 e ${p.max} (recebido: ${p.n}).`,
    'request.timeout': (p: P) => `O tempo limite deve ser positivo e no máximo ${p.max} (recebido: ${p.value}).`,
    'request.language': (p: P) => `Linguagem não suportada “${p.language}”: use Python, Shell ou JavaScript (Node.js).`,
    'request.mode': (p: P) => `Modo desconhecido “${p.mode}”: script ou projeto.`,
    'request.needs_workspace': () => 'Uma tarefa, comandos de validação e um revisor exigem o modo projeto.',
    'request.compare_too_few': (p: P) => `Uma comparação precisa de pelo menos dois provedores (recebidos: ${p.n}).`,
    'request.compare_twice': (p: P) => `O provedor ${p.provider} aparece duas vezes.`,
    'request.compare_rerun': () => 'Um provedor de uma comparação de projetos não pode ser executado de novo nessa sessão: inicie uma nova comparação.',
    'request.compare_session': () => 'Essa sessão não é uma comparação: continue-a com um provedor.',
    'request.retry_running': () => 'Essa execução ainda está em andamento: ela pode ser tentada de novo quando terminar.',
    'request.retry_workspace': () => 'Uma execução no modo projeto não pode ser retomada de onde parou: comece a tarefa de novo.',
    'request.settings': (p: P) => `Configurações de execução inutilizáveis: ${p.detail}`,
    'request.bad_input': (p: P) => `Não foi possível ler o pedido: ${p.detail}`,
    'request.no_endpoint': (p: P) => `Este endereço da API não existe: ${p.method} ${p.path}`,
    'request.token': () => 'Token de acesso ausente ou errado: abra o endereço que o loopforge serve mostrou.',
    'request.origin': () => 'Pedido de outra origem recusado.',
    'config.invalid': (p: P) => `Problema na configuração: ${p.detail}`,
    'provider.unknown': (p: P) => `Provedor desconhecido “${p.provider}”.`,
    not_found: () => 'Essa sessão ou execução não existe (mais).',
    'not_found.run': () => 'Essa execução não existe (mais).',
    'workdir.empty': () => 'O caminho da pasta está vazio.',
    'workdir.missing': (p: P) => `${p.path} não existe.`,
    'workdir.not_folder': (p: P) => `${p.path} é um arquivo, não uma pasta.`,
    'workdir.unreadable': (p: P) => `Não foi possível abrir ${p.path}: ${p.detail}`,
    'workspace.no_workdir': () => 'O modo projeto precisa de uma pasta de projeto.',
    'workspace.cannot_edit': (p: P) => `O provedor ${p.provider} (${p.kind}) não consegue editar arquivos: não tem ferramentas de arquivo próprias nem chamada de ferramentas.`,
    'workspace.not_repo': (p: P) => `A pasta do projeto não é um repositório git utilizável: ${p.detail}`,
    'workspace.no_commit': (p: P) => `O repositório em ${p.dir} ainda não tem nenhum commit: faça um commit para o loopforge poder criar um branch a partir dele.`,
    'workspace.dirty': (p: P) => `A pasta do projeto ${p.dir} tem mudanças sem commit (${p.changes}): faça commit ou stash delas antes, para as edições do loopforge ficarem separadas das suas.`,
    'workspace.tampered': (p: P) => `Os arquivos de controle do git mudaram enquanto ${p.actor || 'a execução'} trabalhava (${p.files}): o loopforge não vai rodar git em ${p.dir}; inspecione-os antes.`,
    'workspace.branch_moved': (p: P) => `O HEAD saiu do branch da execução ${p.branch} (agora está em ${p.head || 'um HEAD destacado'}): o loopforge não vai fazer commit ali; faça checkout de ${p.branch} em ${p.dir} e inspecione as mudanças antes.`,
    'export.format': (p: P) => `Formato de exportação desconhecido “${p.format}”.`,
    'export.lang': (p: P) => `Idioma de exportação desconhecido “${p.lang}”.`,
    'export.tz': (p: P) => `Fuso horário desconhecido “${p.tz}” para as datas da exportação.`,
    'export.no_code': () => 'Esta execução não produziu código para exportar; a apostila e o JSON ainda mostram o que aconteceu.',
    'export.not_runnable': () => 'O resultado da execução é um patch, não um programa: exporte-o como .patch, apostila, zip ou JSON.',
    'sandbox.unavailable': (p: P) => `O código gerado não pode ser executado nesta máquina (loopforge doctor diz por quê): ${p.detail}`,
    'provider.missing_key': (p: P) => `${p.provider}: sem chave de API. Defina ${p.env} no ambiente ou em um arquivo .env.`,
    'provider.missing_env': (p: P) => `${p.provider}: a CLI precisa da variável de ambiente ${p.env}.`,
    'provider.cli_not_found': (p: P) => `${p.provider}: a CLI “${p.binary}” não está instalada.${p.hint ? ` ${p.hint}` : ''}`,
    'provider.cli_failed': (p: P) => `${p.provider}: a CLI falhou (código de saída ${p.exit})${p.message ? `: ${p.message}` : '.'}`,
    'provider.cli_output': (p: P) => `${p.provider}: a CLI imprimiu algo que não é um de seus eventos (linha ${p.line}).`,
    'provider.timeout': (p: P) =>
      p.limit
        ? `${p.provider}: nenhuma resposta completa em ${p.limit}. Para esperar mais, aumente ${p.key} no perfil “${p.provider}” do loopforge.yml.`
        : `${p.provider}: a chamada excedeu o tempo limite.`,
    'provider.auth': (p: P) => `${p.provider}: a chave de API foi recusada${p.status ? ` (HTTP ${p.status})` : ''}${p.env ? `; verifique ${p.env}` : ''}.${said(p)}`,
    'provider.forbidden': (p: P) =>
      `${p.provider}: a chave é válida mas não pode usar ${p.model ? `o modelo ${p.model}` : 'este modelo'} (ou não a partir desta região): habilite o modelo para ela ou escolha outro.${said(p)}`,
    'provider.rate_limit': (p: P) =>
      `${p.provider}: pedidos demais${p.attempts ? ` (${p.attempts} tentativas)` : ''}${p.retry_after ? `; o servidor pede para esperar ${p.retry_after}` : ''}.${said(p)}`,
    'provider.server': (p: P) => `${p.provider}: o servidor do provedor falhou${p.status ? ` (HTTP ${p.status})` : ''}${p.attempts ? ` ${p.attempts} vezes` : ''}.${said(p)}`,
    'provider.bad_request': (p: P) => `${p.provider}: o pedido foi rejeitado${p.status ? ` (HTTP ${p.status})` : ''}.${said(p)}`,
    'provider.unreachable': (p: P) => `${p.provider}: não foi possível alcançar ${p.url}.${said(p)}`,
    'provider.protocol': (p: P) => `${p.provider}: a resposta não seguiu o formato do provedor.${said(p)}`,
    'provider.error': (p: P) => `${p.provider}: a chamada falhou.${said(p)}`,
    'provider.refused': (p: P) => `${p.provider}: o modelo se recusou a responder${p.category ? ` (${p.category})` : ''}.${said(p)}`,
    'provider.interrupted': (p: P) =>
      `${p.provider}: a conexão${p.url ? ` com ${p.url}` : ''} caiu no meio da resposta${Number(p.received) > 0 ? ` (depois de ${p.received} caracteres)` : ''}: o servidor do modelo parou ou a rede caiu. Tentar a iteração de novo pode funcionar.${said(p)}`,
    'provider.token_cap': (p: P) =>
      p.unsupported
        ? `${p.provider}: o servidor não aceita o campo ${p.field} para o limite de tokens da resposta: defina max_tokens_field: ${p.other} no perfil “${p.provider}” do loopforge.yml.${said(p)}`
        : `${p.provider}: o servidor recusou o limite de tokens da resposta (${p.field}: ${p.value}): diminua max_output_tokens${p.other ? `, ou defina max_tokens_field: ${p.other} se ele quiser esse campo,` : ''} no perfil “${p.provider}” do loopforge.yml.${said(p)}`,
    'provider.model_not_found': (p: P) =>
      `${p.provider}: o modelo ${p.model || 'pedido'} não existe ou não é mais oferecido a esta chave${p.status ? ` (HTTP ${p.status})` : ''}. ` +
      (p.listed
        ? p.models
          ? `Modelos que esta chave pode usar: ${modelsNamed(p.models, (n) => `… e mais ${n}`)}. `
          : 'Esta chave não pode usar nenhum modelo. '
        : 'Não foi possível listar agora os modelos que esta chave pode usar (veja Modelos ao lado do provedor, ou rode loopforge providers --models). ') +
      `Escolha outro em Modelos, ao lado do provedor, ou defina model: no perfil “${p.provider}” do loopforge.yml.${said(p)}`,
    'provider.no_model_list': (p: P) => `${p.provider}: uma CLI de programação não tem lista de modelos para consultar; a documentação dela nomeia os seus modelos.`,
    'run.cancelled': () => 'Parada pelo usuário.',
    'run.shutdown': () => 'O loopforge estava sendo encerrado.',
    'history.corrupt': (p: P) =>
      `${p.damage === 'not_a_database' ? `O arquivo de histórico ${p.path} não é um histórico do loopforge.` : p.damage === 'empty' ? `O arquivo de histórico ${p.path} está vazio, embora um histórico estivesse guardado nele.` : `O arquivo de histórico ${p.path} está danificado${p.detail ? ` (${p.detail})` : ''}.`} Ele foi mantido como está. ` +
      (p.backup
        ? `A cópia de segurança mais recente é ${p.backup}: para voltar a ela, mova ${p.path} para outro lugar e copie a cópia de segurança no lugar dele. `
        : 'Não há cópia de segurança dele. ') +
      `Para começar um histórico novo, mova ${p.path} (e qualquer ${p.path}-wal ao lado dele) para outra pasta e abra o loopforge de novo.`,
    'history.disk_full': (p: P) =>
      `O disco que guarda o histórico (pasta ${p.dir}) está cheio: libere espaço nele.`,
    'format.empty': () => 'A resposta veio vazia.',
    'format.invalid_json': (p: P) => `A resposta não era um JSON válido (${p.detail}).`,
    'format.empty_field': () => 'A resposta JSON tinha o campo “code” vazio.',
    'format.unclosed': () => 'O bloco de código foi aberto mas nunca fechado (a resposta foi cortada?).',
    'format.other_block': (p: P) => `A resposta tinha um bloco de código marcado ${p.found}, mas nenhum marcado ${p.fence}.`,
    'format.no_block': (p: P) => `A resposta não tinha um bloco de código marcado ${p.fence}.`,
    'format.empty_block': (p: P) => `O bloco de código ${p.fence} estava vazio.`,
  },

  crash: {
    title: 'Algo deu errado na página',
    hint: 'Suas execuções continuam no servidor. Recarregue para voltar a elas.',
    reload: 'Recarregar',
  },
}

// let: reassigned by setLanguage; importers see the live binding
export let strings: Strings = en
let current: Lang = 'en'

/** setLanguage makes the table of lang the one in use. */
export function setLanguage(lang: Lang): void {
  strings = lang === 'pt' ? pt : en
  current = lang
}

/** currentLang is the language in use (what exports are asked for in). */
export function currentLang(): Lang {
  return current
}

/** timeZone is the IANA name of the user's time zone ("" when the browser does not say), for exports' dates. */
export function timeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone ?? ''
  } catch {
    return ''
  }
}

/** locale is the BCP 47 tag of the language in use, for Intl (dates, numbers). */
export function locale(): string {
  return current === 'pt' ? 'pt-BR' : 'en'
}

/**
 * errorText words an error from the backend by its code and parameters in
 * the language in use; without a code, or with one this table does not know
 * (a newer backend), it is the backend's English text.
 */
export function errorText(code: string | undefined, params: Record<string, string> | undefined, fallback: string): string {
  const f = code ? strings.errors[code] : undefined
  return f ? f(params ?? {}) : fallback
}

/** The codes of failures of the provider itself, which "The provider said:" may introduce. */
const providerCodes = new Set([
  'provider.auth',
  'provider.forbidden',
  'provider.rate_limit',
  'provider.server',
  'provider.bad_request',
  'provider.unreachable',
  'provider.protocol',
  'provider.error',
  'provider.timeout',
  'provider.refused',
  'provider.interrupted',
  'provider.token_cap',
  'provider.model_not_found',
  'provider.cli_failed',
  'provider.cli_output',
])

/**
 * The codes of provider failures that trying again may cure (backend:
 * service.Code.Retryable, the same list): the run view offers to try the
 * iteration again for these.
 */
const retryCodes = new Set(['provider.interrupted', 'provider.server', 'provider.rate_limit', 'provider.unreachable', 'provider.timeout'])

/** isRetryable: the code is a provider failure that trying the iteration again may cure. */
export function isRetryable(code: string | undefined): boolean {
  return code != null && retryCodes.has(code)
}

/** isProviderError: the code is the provider's own failure, not one of loopforge's refusals. */
export function isProviderError(code: string | undefined): boolean {
  return code != null && providerCodes.has(code)
}

/** What the UI knows of one execution, to word how it ended. */
export interface ExecFacts {
  status: string
  exitCode: number
  signal?: string
  stderr?: string
  outcome?: ExecNote
  /** The backend's English, for a code this table does not know. */
  description?: string
}

/**
 * execOutcome words how an execution ended in the language in use: by its
 * outcome code, else (a run recorded before outcomes, or a history replay)
 * from its status, exit code and the last line of its stderr.
 */
export function execOutcome(x: ExecFacts): string {
  const w = strings.live.exec
  if (x.outcome) {
    const f = w.outcome[x.outcome.code]
    if (f) return f(x.outcome.params ?? {})
    if (x.description) return x.description
  }
  const detail = lastLine(x.stderr ?? '')
  switch (x.status) {
    case 'ok':
      return w.outcome.ok({})
    case 'error':
      return x.signal ? w.outcome.signal({ signal: x.signal, detail }) : w.outcome.exit({ exit: String(x.exitCode), detail })
    case 'memory':
      return w.outcome.memory({ detail })
  }
  return w.status[x.status] ?? x.description ?? x.status
}

/** execNote words one note about an execution; an unknown code shows the backend's English (fallback). */
export function execNote(n: ExecNote, fallback = ''): string {
  const f = strings.live.exec.notes[n.code]
  return f ? f(n.params ?? {}) : fallback || n.code
}

/** lastLine is the last non-blank line of s, shortened as the sandbox shortens it. */
function lastLine(s: string): string {
  const lines = s.trimEnd().split('\n')
  const last = (lines[lines.length - 1] ?? '').trim()
  return last.length > 200 ? `${last.slice(0, 200)}…` : last
}

/** noticeText words a run's notice in the language in use: loopforge's by code, a provider's own as it came. */
export function noticeText(l: { message: string; code?: string; params?: Record<string, string> }): string {
  const f = l.code ? strings.live.notices[l.code] : undefined
  return f ? f(l.params ?? {}) : l.message
}
