package export

import (
	"fmt"
	"strings"
	"time"
	// The zone database inside the binary (about 450 KB): a zone the
	// browser names is found even on a machine without /usr/share/zoneinfo.
	_ "time/tzdata"
)

// Lang is the language of an export's own words: headings, labels, notes,
// numbers and dates. What the models and programs wrote is never
// translated. Every word comes from the one table below (texts), which has
// each key in every language (a test checks it).
type Lang string

const (
	English    Lang = "en"
	Portuguese Lang = "pt"
)

// Langs lists the languages in the order help texts show them.
func Langs() []Lang { return []Lang{English, Portuguese} }

// ParseLang reads a language tag: "" and any English tag (en, en-US) are
// English, any Portuguese one (pt, pt-BR) Portuguese.
func ParseLang(s string) (Lang, error) {
	base, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "-")
	base, _, _ = strings.Cut(base, "_")
	switch base {
	case "", "en":
		return English, nil
	case "pt":
		return Portuguese, nil
	}
	return "", fmt.Errorf("export: unknown language %q (want en or pt)", s)
}

// msg is one text in every language; a %-verb stands for what fmt puts in.
type msg struct{ en, pt string }

// texts holds every word of every export format.
var texts = map[string]msg{
	// The handout (Markdown and HTML).
	"brand":       {"loopforge · handout", "loopforge · apostila"},
	"exportedBy":  {"exported by loopforge", "exportado pelo loopforge"},
	"sessionOf":   {"Session of %s", "Sessão de %s"},
	"run":         {"run", "execução"},
	"runs":        {"runs", "execuções"},
	"prompt":      {"Prompt", "Prompt"},
	"noRuns":      {"This session has no runs.", "Esta sessão não tem execuções."},
	"comparison":  {"Comparison", "Comparação"},
	"model":       {"model %s", "modelo %s"},
	"wallTime":    {"wall time %s", "tempo total %s"},
	"tokensInOut": {"tokens %s in / %s out", "tokens %s de entrada / %s de saída"},
	"cost":        {"cost %s", "custo %s"},
	"error":       {"Error", "Erro"},
	"runError":    {"Run error", "Erro da execução"},
	"iteration":   {"Iteration %d", "Iteração %d"},
	// Tests (backend/judge).
	"testsPassed":           {"%s/%s tests passed", "%s/%s testes passaram"},
	"testN":                 {"Test %d", "Teste %d"},
	"hiddenTest":            {"a hidden test", "um teste oculto"},
	"colTests":              {"Tests", "Testes"},
	"verdict.wrong_answer":  {"wrong answer", "resposta errada"},
	"verdict.runtime_error": {"runtime error", "erro de execução"},
	"verdict.time_limit":    {"time limit exceeded", "tempo limite excedido"},
	"verdict.memory_limit":  {"memory limit exceeded", "limite de memória excedido"},
	"noAnswer":              {"No answer was recorded; the run stopped here.", "Nenhuma resposta foi registrada; a execução parou aqui."},
	"noUsableCode":          {"The answer had no usable code.", "A resposta não tinha código utilizável."},
	"answer":                {"Answer", "Resposta"},
	"isFinal":               {"This is the final code, shown below.", "Este é o código final, mostrado abaixo."},
	"isLast":                {"This is the last attempt, shown below.", "Esta é a última tentativa, mostrada abaixo."},
	"reflection":            {"Reflection", "Reflexão"},
	"finalCode":             {"Final code", "Código final"},
	"lastAttempt":           {"Last attempt", "Última tentativa"},
	"noOutputRec":           {"No recorded output.", "Nenhuma saída registrada."},
	"noCodeErr":             {"This run produced no code (see the error above).", "Esta execução não produziu código (veja o erro acima)."},
	"noCodeWhy":             {"This run produced no code (%s).", "Esta execução não produziu código (%s)."},
	"lastNote":              {"The last code generated; it did not run cleanly.", "O último código gerado; ele não rodou sem erros."},
	"notExecuted":           {"Not executed.", "Não executado."},
	"noOutputEnd":           {"No output (%s).", "Sem saída (%s)."},
	"pictures":              {"Pictures: %s.", "Imagens: %s."},
	"output":                {"Output", "Saída"},
	"stderr":                {"Standard error", "Saída de erro"},
	"errOutput":             {"Error output (%s)", "Saída de erro (%s)"},
	"endedWith":             {"Ended with %s.", "Terminou com %s."},
	"outputCut":             {"The output was cut when it was recorded.", "A saída foi cortada ao ser registrada."},
	"empty":                 {"(empty)", "(vazio)"},
	"exit":                  {"exit %s", "saída %s"},
	"legend":                {"Wall time covers generation, execution and reflection. Lines: non-blank lines of each run's last code. Exit: that code's last execution. — means unknown or none.", "O tempo total inclui geração, execução e reflexão. Linhas: linhas não vazias do último código de cada execução. Saída: a última execução desse código. — significa desconhecido ou nenhum."},
	"footer":                {"Exported by loopforge. Code, outputs and reflections were written by AI models and shown as recorded.", "Exportado pelo loopforge. Código, saídas e reflexões foram escritos por modelos de IA e aparecem como foram registrados."},
	"moreLines":             {"… %d more lines not shown", "… mais %d linhas não mostradas"},
	"moreLine":              {"… 1 more line not shown", "… mais 1 linha não mostrada"},
	"untitled":              {"loopforge session", "sessão do loopforge"},
	"ranCleanly":            {"ran cleanly", "rodou sem erros"},
	"noAnswerLabel":         {"no answer", "sem resposta"},
	"noCodeLabel":           {"no code", "sem código"},
	"execTimeout":           {"timed out", "tempo esgotado"},
	"execMemory":            {"memory limit exceeded", "limite de memória excedido"},
	"execOutput":            {"output limit exceeded", "limite de saída excedido"},
	"execKilled":            {"killed (cancelled)", "encerrado (cancelado)"},
	"execSandbox":           {"sandbox error", "erro da sandbox"},
	"execSignal":            {"signal %s", "sinal %s"},
	"colProvider":           {"Provider", "Provedor"},
	"colModel":              {"Model", "Modelo"},
	"colStatus":             {"Status", "Situação"},
	"colIterations":         {"Iterations", "Iterações"},
	"colWall":               {"Wall time", "Tempo total"},
	"colTokensIn":           {"Tokens in", "Tokens de entrada"},
	"colTokensOut":          {"Tokens out", "Tokens de saída"},
	"colTokens":             {"Tokens in / out", "Tokens entrada / saída"},
	"colCost":               {"Cost", "Custo"},
	"colLines":              {"Lines", "Linhas"},
	"colLinesOfCode":        {"Lines of code", "Linhas de código"},
	"colExit":               {"Exit", "Saída"},
	"colExitCode":           {"Exit code", "Código de saída"},
	"colFile":               {"File", "Arquivo"},

	// Run statuses, as labels and in sentences.
	"st.success":       {"success", "sucesso"},
	"st.limit_reached": {"limit reached", "limite atingido"},
	"st.error":         {"error", "erro"},
	"st.cancelled":     {"cancelled", "cancelada"},
	"st.interrupted":   {"interrupted", "interrompida"},
	"st.running":       {"running", "em execução"},
	"iterations1":      {"1 iteration", "1 iteração"},
	"iterationsN":      {"%d iterations", "%d iterações"},
	"errorNoCode":      {"stopped by an error before any code was generated", "parada por um erro antes de gerar código"},
	"stopNoCode":       {"%s before any code was generated", "%s antes de gerar código"},
	"stillRunning":     {"still running when exported", "ainda em execução ao exportar"},
	"successFirst":     {"success at the first attempt", "sucesso na primeira tentativa"},
	"successAfter":     {"success after %s", "sucesso após %s"},
	"limitReached":     {"iteration limit reached (%s), the last attempt still failed", "limite de iterações atingido (%s), a última tentativa ainda falhou"},
	"errorAfter":       {"stopped by an error after %s", "parada por um erro após %s"},
	"cancelledAfter":   {"cancelled after %s", "cancelada após %s"},
	"interruptedAfter": {"interrupted after %s", "interrompida após %s"},
	"runningSoFar":     {"still running when exported (%s so far)", "ainda em execução ao exportar (%s até agora)"},
	"statusOther":      {"%s (%s)", "%s (%s)"},
	"statusReason":     {"status %s: %s", "situação %s: %s"},
	"statusOnly":       {"status %s", "situação %s"},
	"noStatus":         {"no status", "sem situação"},

	// The zip's comparison.md.
	"cmpTitle":    {"%s — comparison", "%s — comparação"},
	"cmpSession":  {"Session of %s, %s. ", "Sessão de %s, %s. "},
	"cmpExported": {"Exported by loopforge. The prompt is in `%s`.", "Exportado pelo loopforge. O prompt está em `%s`."},
	// The names of the zip's own files (the scripts are named after their
	// providers, which are not translated).
	"zipComparison": {"comparison.md", "comparacao.md"},
	"zipPrompt":     {"prompt.txt", "prompt.txt"},
	"cmpLegend":     {"Wall time is the whole run (generation, execution and reflection). Lines of code count non-blank lines of each run's last script. Exit code is that of the script's last execution. — means unknown or none.", "O tempo total é a execução inteira (geração, execução e reflexão). Linhas de código contam as linhas não vazias do último script de cada execução. O código de saída é o da última execução do script. — significa desconhecido ou nenhum."},
	"cmpNoCode":     {"%s produced no code (%s).", "%s não produziu código (%s)."},
	"generatedBy":   {"Generated by loopforge (an AI code-generation loop).", "Gerado pelo loopforge (um ciclo de geração de código por IA)."},
	"hdrTitle":      {"Title:      %s", "Título:     %s"},
	"hdrPrompt":     {"Prompt:", "Prompt:"},
	"hdrMore":       {"  … (%d more lines of the prompt not shown)", "  … (mais %d linhas do prompt não mostradas)"},
	"hdrProvider":   {"Provider:   %s", "Provedor:   %s"},
	"hdrModel":      {"Model:      %s", "Modelo:     %s"},
	"hdrIterations": {"Iterations: %d", "Iterações:  %d"},
	"hdrStatus":     {"Status:     %s", "Situação:   %s"},
	"hdrDate":       {"Date:       %s", "Data:       %s"},
	"hdrLast":       {"Last attempt: this code did not run cleanly in loopforge; see the status above.", "Última tentativa: este código não rodou sem erros no loopforge; veja a situação acima."},

	// The class export's summary (loopforge class).
	"cls.student":    {"student", "aluno"},
	"cls.runs":       {"runs", "execuções"},
	"cls.successes":  {"successes", "sucessos"},
	"cls.lastStatus": {"last status", "última situação"},
	"cls.iterations": {"iterations", "iterações"},
	"cls.provider":   {"provider", "provedor"},
	"cls.tokens":     {"tokens", "tokens"},
	"cls.cost":       {"cost (USD)", "custo (USD)"},
	"cls.students":   {"%d students", "%d alunos"},
	"cls.student1":   {"%d student", "%d aluno"},

	// The class export's attempts.csv: one row per run and iteration.
	"att.student":    {"student", "aluno"},
	"att.assignment": {"assignment", "tarefa"},
	"att.run":        {"run id", "id da execução"},
	"att.started":    {"started", "início"},
	"att.runStatus":  {"run status", "situação da execução"},
	"att.iteration":  {"iteration", "iteração"},
	"att.status":     {"iteration status", "situação da iteração"},
	"att.errorKind":  {"error kind", "tipo de erro"},
	"att.error":      {"error", "erro"},
	"att.tokensIn":   {"tokens in", "tokens de entrada"},
	"att.tokensOut":  {"tokens out", "tokens de saída"},
	"att.seconds":    {"seconds", "segundos"},
	"att.working":    {"seconds to a working program", "segundos até um programa que funciona"},

	// The class export's grade sheet (grades.csv) and per-test results
	// (grade-tests.csv).
	"grd.student":    {"student", "aluno"},
	"grd.assignment": {"assignment", "tarefa"},
	"grd.passed":     {"tests passed", "testes aprovados"},
	"grd.total":      {"tests total", "total de testes"},
	"grd.score":      {"score (%)", "nota (%)"},
	"grd.attempts":   {"attempts", "tentativas"},
	"grd.seconds":    {"seconds (first run to best)", "segundos (da primeira execução à melhor)"},
	"grd.status":     {"best run status", "situação da melhor execução"},
	"grd.run":        {"best run id", "id da melhor execução"},
	"grd.test":       {"test", "teste"},
	"grd.name":       {"test name", "nome do teste"},
	"grd.hidden":     {"hidden test", "teste oculto"},
	"grd.verdict":    {"verdict", "veredito"},

	// The notebook's first cell.
	"nbGenerated": {"Generated by loopforge with **%s**", "Gerado pelo loopforge com **%s**"},
	"nbLast":      {"the code below did not run cleanly.", "o código abaixo não rodou sem erros."},
}

// t is the text of key in l, with a filled in as fmt does. An unknown key
// is a programming error: it shows as itself, and the tests catch it.
func (l Lang) t(key string, a ...any) string {
	m, ok := texts[key]
	if !ok {
		return key
	}
	s := m.en
	if l == Portuguese {
		s = m.pt
	}
	if len(a) == 0 {
		return s
	}
	return fmt.Sprintf(s, a...)
}

// status is a run status in words: "limit reached", "limite atingido".
func (l Lang) status(s string) string {
	if _, ok := texts["st."+s]; ok {
		return l.t("st." + s)
	}
	return strings.ReplaceAll(s, "_", " ")
}

// decimal writes a number with the language's decimal separator.
func (l Lang) decimal(format string, v float64) string {
	s := fmt.Sprintf(format, v)
	if l == Portuguese {
		s = strings.ReplaceAll(s, ".", ",")
	}
	return s
}

// thousands is the separator between groups of three digits.
func (l Lang) thousands() byte {
	if l == Portuguese {
		return '.'
	}
	return ','
}

// Locale is how an export writes its own words: their language, and the
// time zone of its dates (what the models and programs wrote is never
// changed).
type Locale struct {
	Lang Lang
	// Zone is where the dates are read; nil is UTC.
	Zone *time.Location
}

// ParseZone reads an IANA time zone name ("America/Sao_Paulo", "UTC");
// "" is the zone of the machine running loopforge (time.Local).
func ParseZone(name string) (*time.Location, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return time.Local, nil
	}
	// LoadLocation also takes "Local", the machine's zone under another name:
	// a request names a real zone or nothing.
	if name == "Local" {
		return nil, fmt.Errorf("export: unknown time zone %q (want an IANA name such as America/Sao_Paulo)", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("export: unknown time zone %q (want an IANA name such as America/Sao_Paulo)", name)
	}
	return loc, nil
}

// words is a Locale as the renderers use it: the Lang's texts and numbers,
// and dates in the zone.
type words struct {
	Lang
	zone *time.Location
}

func (loc Locale) words() words {
	z := loc.Zone
	if z == nil {
		z = time.UTC
	}
	return words{Lang: loc.Lang, zone: z}
}

// time renders a moment in the export's zone, to the minute, the way the
// language writes dates, with the zone's abbreviation (an offset when it
// has none): 2025-03-01 14:00 UTC, 01/03/2025 11:00 UTC-03.
func (w words) time(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	t = t.In(w.zone)
	zone, _ := t.Zone()
	if strings.HasPrefix(zone, "+") || strings.HasPrefix(zone, "-") {
		zone = "UTC" + zone
	}
	if w.Lang == Portuguese {
		return t.Format("02/01/2006 15:04 ") + zone
	}
	return t.Format("2006-01-02 15:04 ") + zone
}
