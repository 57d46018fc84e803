import { bytes, integer } from '../format'
import { classPt } from './class'
import { testsPt } from './tests'
import { said, modelsNamed, type P } from './words'

// The error words in Portuguese: the keys of errors.en.ts.
export const errorsPt: Record<string, (p: P) => string> = {
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
}
