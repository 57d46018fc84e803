export namespace config {
	
	export class Preset {
	    id: string;
	    title: string;
	    prompt: string;
	
	    static createFrom(source: any = {}) {
	        return new Preset(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.prompt = source["prompt"];
	    }
	}

}

export namespace loop {
	
	export class Task {
	    instructions: string;
	    inputs?: string[];
	    constraints?: string[];
	    validate?: string[];
	
	    static createFrom(source: any = {}) {
	        return new Task(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.instructions = source["instructions"];
	        this.inputs = source["inputs"];
	        this.constraints = source["constraints"];
	        this.validate = source["validate"];
	    }
	}

}

export namespace server {
	
	export class CompareRequest {
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
	    allow_network?: boolean;
	    mode?: string;
	    workdir?: string;
	    validate?: string[];
	    auditor?: string;
	    task?: loop.Task;
	    providers: string[];
	
	    static createFrom(source: any = {}) {
	        return new CompareRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.prompt = source["prompt"];
	        this.provider = source["provider"];
	        this.model = source["model"];
	        this.base_url = source["base_url"];
	        this.max_iterations = source["max_iterations"];
	        this.reflect = source["reflect"];
	        this.timeout_seconds = source["timeout_seconds"];
	        this.language = source["language"];
	        this.fresh = source["fresh"];
	        this.allow_network = source["allow_network"];
	        this.mode = source["mode"];
	        this.workdir = source["workdir"];
	        this.validate = source["validate"];
	        this.auditor = source["auditor"];
	        this.task = this.convertValues(source["task"], loop.Task);
	        this.providers = source["providers"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Endpoint {
	    url: string;
	    token: string;
	
	    static createFrom(source: any = {}) {
	        return new Endpoint(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.url = source["url"];
	        this.token = source["token"];
	    }
	}
	export class RunRequest {
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
	    allow_network?: boolean;
	    mode?: string;
	    workdir?: string;
	    validate?: string[];
	    auditor?: string;
	    task?: loop.Task;
	
	    static createFrom(source: any = {}) {
	        return new RunRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.prompt = source["prompt"];
	        this.provider = source["provider"];
	        this.model = source["model"];
	        this.base_url = source["base_url"];
	        this.max_iterations = source["max_iterations"];
	        this.reflect = source["reflect"];
	        this.timeout_seconds = source["timeout_seconds"];
	        this.language = source["language"];
	        this.fresh = source["fresh"];
	        this.allow_network = source["allow_network"];
	        this.mode = source["mode"];
	        this.workdir = source["workdir"];
	        this.validate = source["validate"];
	        this.auditor = source["auditor"];
	        this.task = this.convertValues(source["task"], loop.Task);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Workdir {
	    path: string;
	
	    static createFrom(source: any = {}) {
	        return new Workdir(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	    }
	}

}

export namespace service {
	
	export class RunInfo {
	    run_id: string;
	    session_id: string;
	    provider: string;
	    model: string;
	
	    static createFrom(source: any = {}) {
	        return new RunInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.run_id = source["run_id"];
	        this.session_id = source["session_id"];
	        this.provider = source["provider"];
	        this.model = source["model"];
	    }
	}
	export class CompareInfo {
	    session_id: string;
	    runs: RunInfo[];
	
	    static createFrom(source: any = {}) {
	        return new CompareInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.runs = this.convertValues(source["runs"], RunInfo);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ComparisonRow {
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
	
	    static createFrom(source: any = {}) {
	        return new ComparisonRow(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.run_id = source["run_id"];
	        this.provider = source["provider"];
	        this.model = source["model"];
	        this.status = source["status"];
	        this.iterations = source["iterations"];
	        this.iterations_to_success = source["iterations_to_success"];
	        this.wall_ms = source["wall_ms"];
	        this.first_token_ms = source["first_token_ms"];
	        this.input_tokens = source["input_tokens"];
	        this.output_tokens = source["output_tokens"];
	        this.cost_usd = source["cost_usd"];
	        this.lines_of_code = source["lines_of_code"];
	        this.final_exit_code = source["final_exit_code"];
	    }
	}
	export class LimitsInfo {
	    memory_bytes: number;
	    processes: number;
	    output_bytes: number;
	    file_size_bytes: number;
	    open_files: number;
	    cpus: number;
	
	    static createFrom(source: any = {}) {
	        return new LimitsInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.memory_bytes = source["memory_bytes"];
	        this.processes = source["processes"];
	        this.output_bytes = source["output_bytes"];
	        this.file_size_bytes = source["file_size_bytes"];
	        this.open_files = source["open_files"];
	        this.cpus = source["cpus"];
	    }
	}
	export class Defaults {
	    provider: string;
	    max_iterations: number;
	    reflect: boolean;
	    timeout_seconds: number;
	    language: string;
	    limits: LimitsInfo;
	    isolation: string;
	    command_timeout_seconds: number;
	    commands_sandboxed: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Defaults(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.provider = source["provider"];
	        this.max_iterations = source["max_iterations"];
	        this.reflect = source["reflect"];
	        this.timeout_seconds = source["timeout_seconds"];
	        this.language = source["language"];
	        this.limits = this.convertValues(source["limits"], LimitsInfo);
	        this.isolation = source["isolation"];
	        this.command_timeout_seconds = source["command_timeout_seconds"];
	        this.commands_sandboxed = source["commands_sandboxed"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class KeyRejection {
	    // Go type: time
	    at: any;
	    message: string;
	
	    static createFrom(source: any = {}) {
	        return new KeyRejection(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.at = this.convertValues(source["at"], null);
	        this.message = source["message"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class ProviderStatus {
	    name: string;
	    kind: string;
	    model: string;
	    base_url?: string;
	    api_key_env?: string;
	    version?: string;
	    default: boolean;
	    available: boolean;
	    reason?: string;
	    first_byte_timeout_seconds?: number;
	    idle_timeout_seconds?: number;
	    timeout_seconds: number;
	    key_rejected?: KeyRejection;
	
	    static createFrom(source: any = {}) {
	        return new ProviderStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.kind = source["kind"];
	        this.model = source["model"];
	        this.base_url = source["base_url"];
	        this.api_key_env = source["api_key_env"];
	        this.version = source["version"];
	        this.default = source["default"];
	        this.available = source["available"];
	        this.reason = source["reason"];
	        this.first_byte_timeout_seconds = source["first_byte_timeout_seconds"];
	        this.idle_timeout_seconds = source["idle_timeout_seconds"];
	        this.timeout_seconds = source["timeout_seconds"];
	        this.key_rejected = this.convertValues(source["key_rejected"], KeyRejection);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class SessionDetail {
	    id: string;
	    title: string;
	    prompt: string;
	    mode: string;
	    workdir: string;
	    // Go type: time
	    created_at: any;
	    // Go type: time
	    updated_at: any;
	    runs: store.Run[];
	    iterations: Record<string, Array<store.Iteration>>;
	
	    static createFrom(source: any = {}) {
	        return new SessionDetail(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.prompt = source["prompt"];
	        this.mode = source["mode"];
	        this.workdir = source["workdir"];
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.updated_at = this.convertValues(source["updated_at"], null);
	        this.runs = this.convertValues(source["runs"], store.Run);
	        this.iterations = this.convertValues(source["iterations"], Array<store.Iteration>, true);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class StatsGroup {
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
	
	    static createFrom(source: any = {}) {
	        return new StatsGroup(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.provider = source["provider"];
	        this.model = source["model"];
	        this.runs = source["runs"];
	        this.successes = source["successes"];
	        this.failures = source["failures"];
	        this.cancelled = source["cancelled"];
	        this.exec_timeouts = source["exec_timeouts"];
	        this.success_rate = source["success_rate"];
	        this.avg_duration_ms = source["avg_duration_ms"];
	        this.median_duration_ms = source["median_duration_ms"];
	        this.avg_iterations_to_success = source["avg_iterations_to_success"];
	        this.input_tokens = source["input_tokens"];
	        this.output_tokens = source["output_tokens"];
	        this.cost_usd = source["cost_usd"];
	    }
	}
	export class Stats {
	    total: StatsGroup;
	    groups: StatsGroup[];
	
	    static createFrom(source: any = {}) {
	        return new Stats(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.total = this.convertValues(source["total"], StatsGroup);
	        this.groups = this.convertValues(source["groups"], StatsGroup);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace store {
	
	export class Iteration {
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
	
	    static createFrom(source: any = {}) {
	        return new Iteration(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.run_id = source["run_id"];
	        this.n = source["n"];
	        this.code = source["code"];
	        this.content = source["content"];
	        this.exec_status = source["exec_status"];
	        this.exit_code = source["exit_code"];
	        this.stdout = source["stdout"];
	        this.stderr = source["stderr"];
	        this.truncated = source["truncated"];
	        this.exec_ms = source["exec_ms"];
	        this.isolation = source["isolation"];
	        this.reflection = source["reflection"];
	        this.status = source["status"];
	        this.summary = source["summary"];
	    }
	}
	export class Run {
	    id: string;
	    session_id: string;
	    provider: string;
	    model: string;
	    prompt: string;
	    status: string;
	    max_iterations: number;
	    reflect: boolean;
	    language: string;
	    iterations: number;
	    final_code: string;
	    error: string;
	    input_tokens: number;
	    output_tokens: number;
	    cost_usd: number;
	    // Go type: time
	    started_at: any;
	    // Go type: time
	    finished_at?: any;
	    duration_ms: number;
	
	    static createFrom(source: any = {}) {
	        return new Run(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.session_id = source["session_id"];
	        this.provider = source["provider"];
	        this.model = source["model"];
	        this.prompt = source["prompt"];
	        this.status = source["status"];
	        this.max_iterations = source["max_iterations"];
	        this.reflect = source["reflect"];
	        this.language = source["language"];
	        this.iterations = source["iterations"];
	        this.final_code = source["final_code"];
	        this.error = source["error"];
	        this.input_tokens = source["input_tokens"];
	        this.output_tokens = source["output_tokens"];
	        this.cost_usd = source["cost_usd"];
	        this.started_at = this.convertValues(source["started_at"], null);
	        this.finished_at = this.convertValues(source["finished_at"], null);
	        this.duration_ms = source["duration_ms"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class RunBrief {
	    id: string;
	    provider: string;
	    status: string;
	    iterations: number;
	
	    static createFrom(source: any = {}) {
	        return new RunBrief(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.provider = source["provider"];
	        this.status = source["status"];
	        this.iterations = source["iterations"];
	    }
	}
	export class SessionSummary {
	    id: string;
	    title: string;
	    prompt: string;
	    mode: string;
	    workdir: string;
	    // Go type: time
	    created_at: any;
	    // Go type: time
	    updated_at: any;
	    runs: RunBrief[];
	
	    static createFrom(source: any = {}) {
	        return new SessionSummary(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.prompt = source["prompt"];
	        this.mode = source["mode"];
	        this.workdir = source["workdir"];
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.updated_at = this.convertValues(source["updated_at"], null);
	        this.runs = this.convertValues(source["runs"], RunBrief);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

