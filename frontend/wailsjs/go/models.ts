export namespace runreq {
	
	export interface Task {
	    instructions: string;
	    inputs?: string[];
	    constraints?: string[];
	    validate?: string[];
	}
	export interface Request {
	    session_id?: string;
	    prompt: string;
	    provider?: string;
	    model?: string;
	    base_url?: string;
	    max_iterations?: number;
	    reflect?: boolean;
	    timeout_seconds?: number;
	    language?: string;
	    fresh?: boolean;
	    retry?: string;
	    allow_network?: boolean;
	    stdin?: string;
	    tests?: string;
	    mode?: string;
	    workdir?: string;
	    validate?: string[];
	    auditor?: string;
	    task?: Task;
	}

}

export namespace wire {
	
	export interface Assignment {
	    title?: string;
	    prompt: string;
	    preset?: string;
	    providers?: string[];
	    max_iterations?: number;
	    language?: string;
	    timeout_seconds?: number;
	    reflect?: boolean;
	    tests?: string;
	    hidden_tests?: number;
	    prompt_only?: boolean;
	}
	export interface RunBrief {
	    id: string;
	    provider: string;
	    status: string;
	    iterations: number;
	}
	export interface SessionSummary {
	    id: string;
	    title: string;
	    prompt: string;
	    mode: string;
	    kind: string;
	    workdir: string;
	    // Go type: time
	    created_at: any;
	    // Go type: time
	    updated_at: any;
	    runs: RunBrief[];
	    class_id?: string;
	    student_id?: string;
	    student_name?: string;
	}
	export interface WallBest {
	    run_id: string;
	    tests_passed: number;
	    tests_total: number;
	    success: boolean;
	    iterations: number;
	    prompt_chars: number;
	    runs: number;
	}
	export interface WallRun {
	    run_id: string;
	    session_id: string;
	    provider: string;
	    model?: string;
	    status: string;
	    iteration: number;
	    max_iterations: number;
	    started_at: string;
	    ended_at?: string;
	    queue_position?: number;
	    queue_wait_ms?: number;
	    budget_from?: string;
	    error_code?: string;
	    error_params?: Record<string, string>;
	    tests_passed?: number;
	    tests_total?: number;
	    prompt_chars?: number;
	}
	export interface WallEntry {
	    student_id: string;
	    name: string;
	    joined_at: string;
	    removed?: boolean;
	    current?: WallRun;
	    usage: ClassUsage;
	    best?: WallBest;
	}
	export interface ClassUsage {
	    runs: number;
	    running_runs: number;
	    runs_last_hour: number;
	    tokens: number;
	    cost_usd: number;
	    budget_tokens: number;
	    budget_held: number;
	    budget_cost_usd: number;
	}
	export interface ClassLimits {
	    providers: string[];
	    presets: string[];
	    max_iterations: number;
	    concurrent_runs: number;
	    runs_per_hour: number;
	    tokens_per_student: number;
	    tokens_for_class: number;
	    cost_per_student_usd: number;
	    concurrent_executions: number;
	    scratch_workspace: boolean;
	    budget_window: string;
	    tokens_per_iteration: number;
	    budget_profile: string;
	    max_student_tests: number;
	}
	export interface ClassView {
	    id: string;
	    name: string;
	    join_code?: string;
	    join_url?: string;
	    paused: boolean;
	    assignment?: Assignment;
	    spotlight?: string;
	    limits: ClassLimits;
	    iteration_cap: number;
	    usage: ClassUsage;
	    budget_since?: string;
	}
	export interface ClassDetail {
	    class: ClassView;
	    students: WallEntry[];
	    sessions: SessionSummary[];
	}
	
	export interface ClassRef {
	    id: string;
	}
	export interface ClassSummary {
	    id: string;
	    name: string;
	    created_at: string;
	    ended_at?: string;
	    students: number;
	    runs: number;
	}
	
	
	export interface RunInfo {
	    run_id: string;
	    session_id: string;
	    provider: string;
	    model: string;
	}
	export interface CompareInfo {
	    session_id: string;
	    runs: RunInfo[];
	}
	export interface CompareRequest {
	    session_id?: string;
	    prompt: string;
	    provider?: string;
	    model?: string;
	    base_url?: string;
	    max_iterations?: number;
	    reflect?: boolean;
	    timeout_seconds?: number;
	    language?: string;
	    fresh?: boolean;
	    retry?: string;
	    allow_network?: boolean;
	    stdin?: string;
	    tests?: string;
	    mode?: string;
	    workdir?: string;
	    validate?: string[];
	    auditor?: string;
	    task?: runreq.Task;
	    providers: string[];
	}
	export interface ComparisonRow {
	    run_id: string;
	    provider: string;
	    model: string;
	    status: string;
	    iterations: number;
	    iterations_to_success?: number;
	    wall_ms: number;
	    first_token_ms?: number;
	    input_tokens: number;
	    output_tokens: number;
	    cost_usd: number;
	    lines_of_code: number;
	    final_exit_code?: number;
	    tests_passed?: number;
	    tests_total?: number;
	}
	export interface SandboxLimits {
	    memory_bytes: number;
	    processes: number;
	    output_bytes: number;
	    file_size_bytes: number;
	    open_files: number;
	    cpus: number;
	}
	export interface Defaults {
	    provider: string;
	    max_iterations: number;
	    reflect: boolean;
	    timeout_seconds: number;
	    language: string;
	    max_iterations_limit: number;
	    limits: SandboxLimits;
	    isolation: string;
	    network_isolated: boolean;
	    command_timeout_seconds: number;
	    commands_sandboxed: boolean;
	    max_prompt_bytes: number;
	}
	export interface Endpoint {
	    url: string;
	    token: string;
	}
	export interface ErrorBody {
	    error: string;
	    code: string;
	    params: Record<string, string>;
	}
	export interface Folder {
	    name: string;
	    path: string;
	}
	export interface FolderListing {
	    path: string;
	    parent: string;
	    folders: Folder[];
	}
	export interface FolderQuery {
	    path: string;
	}
	export interface ImageData {
	    name: string;
	    mime: string;
	    width: number;
	    height: number;
	    data_url: string;
	}
	export interface ImageRef {
	    run_id: string;
	    iteration: number;
	    name: string;
	}
	export interface KeyRejection {
	    // Go type: time
	    at: any;
	    message: string;
	    code: string;
	    params?: Record<string, string>;
	}
	export interface PathAssignment {
	    assignment: string;
	    runs: number;
	    first_run: string;
	    working_after_ms: number;
	}
	export interface PathIteration {
	    n: number;
	    status: string;
	    error_kind?: string;
	    error?: string;
	    code: string;
	    reflection?: string;
	    input_tokens: number;
	    output_tokens: number;
	    started_at?: string;
	    duration_ms: number;
	    tests_passed?: number;
	    tests_total?: number;
	}
	export interface PathRun {
	    run_id: string;
	    session_id: string;
	    session_title: string;
	    assignment: string;
	    prompt: string;
	    provider: string;
	    model?: string;
	    status: string;
	    error?: string;
	    error_code?: string;
	    started_at: string;
	    ended_at?: string;
	    input_tokens: number;
	    output_tokens: number;
	    cost_usd: number;
	    working_after_ms: number;
	    iterations: PathIteration[];
	}
	export interface LearningPath {
	    class_id: string;
	    class_name: string;
	    student_id: string;
	    name: string;
	    removed?: boolean;
	    runs: PathRun[];
	    assignments: PathAssignment[];
	    input_tokens: number;
	    output_tokens: number;
	    cost_usd: number;
	}
	export interface Me {
	    role: string;
	    student_id?: string;
	    name?: string;
	    class?: ClassView;
	}
	export interface OK {
	    ok: boolean;
	}
	
	
	export interface PathRequest {
	    id: string;
	    class?: string;
	}
	
	export interface Pause {
	    paused: boolean;
	}
	export interface Preset {
	    id: string;
	    title: string;
	    prompt: string;
	    tests?: string;
	}
	export interface ProviderModel {
	    id: string;
	    name?: string;
	}
	export interface ProviderModels {
	    provider: string;
	    models: ProviderModel[];
	}
	export interface ProviderRef {
	    name: string;
	}
	export interface ProviderStatus {
	    name: string;
	    kind: string;
	    model: string;
	    base_url?: string;
	    api_key_env?: string;
	    version?: string;
	    default: boolean;
	    available: boolean;
	    reason?: string;
	    reason_code?: string;
	    reason_params?: Record<string, string>;
	    first_byte_timeout_seconds?: number;
	    idle_timeout_seconds?: number;
	    timeout_seconds: number;
	    key_rejected?: KeyRejection;
	}
	export interface Spread {
	    mean: number;
	    sd: number;
	    n: number;
	}
	export interface RepeatGroup {
	    provider: string;
	    model: string;
	    reflect: boolean;
	    runs: number;
	    successes: number;
	    pass_all: boolean;
	    pass_at_1: number;
	    iterations_to_green: Spread;
	    wall_ms: Spread;
	    cost_usd: Spread;
	    tests_passed: Spread;
	}
	export interface RepeatID {
	    id: string;
	}
	export interface RepeatRef {
	    id: string;
	    after: number;
	}
	export interface RepeatRequest {
	    session_id?: string;
	    prompt: string;
	    provider?: string;
	    model?: string;
	    base_url?: string;
	    max_iterations?: number;
	    reflect?: boolean;
	    timeout_seconds?: number;
	    language?: string;
	    fresh?: boolean;
	    retry?: string;
	    allow_network?: boolean;
	    stdin?: string;
	    tests?: string;
	    mode?: string;
	    workdir?: string;
	    validate?: string[];
	    auditor?: string;
	    task?: runreq.Task;
	    providers: string[];
	    repeat: number;
	    reflect_ab?: boolean;
	}
	export interface RepeatStatus {
	    id: string;
	    version: number;
	    state: string;
	    repeat: number;
	    reflect_ab: boolean;
	    providers: string[];
	    prompt: string;
	    round: number;
	    rounds: number;
	    reflect: boolean;
	    runs: RunInfo[];
	    runs_done: number;
	    runs_total: number;
	    sessions: string[];
	    groups: RepeatGroup[];
	    error?: ErrorBody;
	}
	
	
	export interface RunRef {
	    id: string;
	}
	
	export interface StoredRun {
	    id: string;
	    session_id: string;
	    provider: string;
	    model: string;
	    prompt: string;
	    stdin?: string;
	    status: string;
	    max_iterations: number;
	    reflect: boolean;
	    language: string;
	    iterations: number;
	    final_code: string;
	    error: string;
	    error_code?: string;
	    error_params?: Record<string, string>;
	    input_tokens: number;
	    output_tokens: number;
	    cost_usd: number;
	    // Go type: time
	    started_at: any;
	    // Go type: time
	    finished_at?: any;
	    duration_ms: number;
	    tests?: string;
	    tests_passed?: number;
	    tests_total?: number;
	}
	export interface SessionDetail {
	    id: string;
	    title: string;
	    prompt: string;
	    mode: string;
	    kind: string;
	    workdir: string;
	    // Go type: time
	    created_at: any;
	    // Go type: time
	    updated_at: any;
	    runs: StoredRun[];
	    iterations: Record<string, Array<StoredIteration>>;
	    images: Record<string, Array<StoredImage>>;
	}
	export interface SessionRef {
	    id: string;
	}
	
	export interface SessionsQuery {
	    q: string;
	    limit: number;
	}
	export interface Setup {
	    os: string;
	    config_dir: string;
	    env_file: string;
	    env_file_exists: boolean;
	    config_file: string;
	    code_runs: boolean;
	    python_missing: boolean;
	    problem?: string;
	}
	export interface Spotlight {
	    run_id: string;
	}
	
	export interface StatsGroup {
	    provider?: string;
	    model?: string;
	    runs: number;
	    successes: number;
	    failures: number;
	    cancelled: number;
	    exec_timeouts: number;
	    success_rate: number;
	    avg_duration_ms: number;
	    median_duration_ms: number;
	    avg_iterations_to_success: number;
	    input_tokens: number;
	    output_tokens: number;
	    cost_usd: number;
	    tested_runs?: number;
	    tests_passed?: number;
	    tests_total?: number;
	}
	export interface Stats {
	    total: StatsGroup;
	    groups: StatsGroup[];
	}
	
	export interface StoredImage {
	    run_id: string;
	    iteration: number;
	    name: string;
	    mime: string;
	    width: number;
	    height: number;
	    size: number;
	}
	export interface StoredIteration {
	    run_id: string;
	    n: number;
	    code: string;
	    content: string;
	    exec_status: string;
	    exit_code: number;
	    stdout: string;
	    stderr: string;
	    truncated: boolean;
	    exec_ms: number;
	    isolation: string;
	    reflection: string;
	    status: string;
	    summary: string;
	}
	
	export interface StudentRef {
	    id: string;
	}
	
	
	
	export interface Workdir {
	    path: string;
	}

}

