import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import t from 'tap';
import ts from 'typescript';

/**
 * The plugin contract and its toolkits, held to the lists below: growing either is a decision
 * made in this file's diff (docs/plugins.md says what belongs where). Plugins reach the core only
 * through them, and never another plugin's files.
 */

const CONTRACT = [
  'AttemptFailure',
  'BatchWriter',
  'BillingCycle',
  'Call',
  'CallWith',
  'Capability',
  'Catalogue',
  'Clock',
  'Cost',
  'costOf',
  'cycleOf',
  'CycleSpend',
  'DEFAULT_DEPLOYMENT',
  'definePlugin',
  'Endpoint',
  'ErrorStatus',
  'ExtensionMigration',
  'formatUsd',
  'GatewayError',
  'invalidRequest',
  'JsonObject',
  'KeptAnswer',
  'KeyRecord',
  'LedgerRow',
  'ModelEntry',
  'modelNotFound',
  'Nanos',
  'Operation',
  'PluginConfigError',
  'PluginContext',
  'PluginHooks',
  'PostgresHandle',
  'ResolvedCall',
  'RetryDecision',
  'RetryPolicy',
  'SettledCall',
  'SpendLimit',
  'SqliteHandle',
  'Store',
  'StoreExtension',
  'Usage',
];

const TOOLKITS: Record<string, string[]> = {
  'ids.ts': ['mintId', 'mintTimedId'],
  'ingress.ts': [
    'automaticCache',
    'cacheBreakpoint',
    'CallOutline',
    'ErrorFormat',
    'firstInArray',
    'firstPart',
    'imageSource',
    'IngressFormat',
    'keepAffinity',
    'memberOutside',
    'members',
    'Members',
    'messageBreakpoint',
    'modelMemberProblem',
    'MembersByType',
    'namedToolChoice',
    'objectSchema',
    'positiveInt',
    'RequestProblem',
    'schemaProblem',
    'SequenceWords',
    'sessionOf',
    'toolArguments',
    'TurnSequence',
    'typedMemberOutside',
    'WebSocketLink',
    'WebSocketRoute',
    'WebSocketSession',
  ],
  'json-schema.ts': ['describedSchema', 'effectiveStrict', 'foldedDescription', 'isSchemaObject', 'strictCompatible', 'unresolvableRefs', 'withDefsNamedDefs'],
  'json-text.ts': ['Edit', 'elementsAt', 'memberEdits', 'named', 'objectAt', 'skipSpace', 'Span', 'spliced', 'withMembers'],
  'json.ts': ['compileSchema', 'isObject', 'parseUpstreamJson'],
  'neutral.ts': [
    'CacheBreakpoint',
    'countAnswer',
    'FinishReason',
    'ImageSource',
    'ledgerUsage',
    'NeutralRequest',
    'noOpener',
    'OpenState',
    'Part',
    'pinToReasoningState',
    'REASONING_EFFORTS',
    'ReasoningEffort',
    'ReasoningRequest',
    'ReasoningState',
    'refuseToolNameClash',
    'Reply',
    'ReplyChoice',
    'ReplyEnvelope',
    'ReplyOutput',
    'ReplyReasoning',
    'ReplyStream',
    'ReplyToolCall',
    'ReplyUsage',
    'ResponseFormat',
    'SealState',
    'stateOpener',
    'stateSealer',
    'StrictAsk',
    'ToolChoice',
    'ToolSpec',
    'TranslatedBody',
    'Turn',
    'verifiedState',
  ],
  'reference-format.ts': [
    'embeddingsBody',
    'EmbeddingsRequest',
    'float32Base64',
    'parseEmbeddingsRequest',
    'referenceUsage',
    'refuseUnknownFields',
    'unknownParameter',
  ],
  'remote-images.ts': ['ByteBudget', 'GuardedFetcher', 'IMAGE_LIMITS', 'inlineRemoteImages', 'policyAllowing', 'ReleaseImages'],
  'routes.ts': ['handled', 'html', 'OPERATOR_PORT_PROPERTIES', 'placeOperatorRoutes', 'presentedBearer', 'SafeHtml', 'sendError', 'sendJson', 'validBody'],
  'secrets.ts': [
    'bearerToken',
    'cutForLog',
    'digestsEqual',
    'hashSecret',
    'IMPORTABLE_PREFIXES',
    'importablePrefixOf',
    'isCredentialHeader',
    'NATIVE_KEY_PATTERN',
    'randomToken',
    'repeatedCredential',
    'Seal',
    'withoutSecrets',
  ],
  'simulator.ts': [
    'countWords',
    'embedText',
    'faultFromDirectives',
    'planReply',
    'readDirectives',
    'ReplyPlan',
    'SimChoice',
    'SimContext',
    'SimOptions',
    'SimRequest',
    'SimRoute',
    'SimServer',
    'SimToolChoice',
    'SimVendor',
    'VendorErrorBody',
  ],
  'sse.ts': ['SSE_DONE', 'sseErrorFrame', 'SseEvent'],
  'token-estimate.ts': ['estimatedPrompt', 'estimatedReplyUsage', 'estimateInputTokens', 'estimateOutputTokens', 'textTokens', 'usageOrEstimate'],
  'upstream-health.ts': ['COOLDOWN_EVENTS_KEPT_MS', 'CooldownEvent', 'CooldownLog', 'openCooldownLog'],
  'vendor.ts': [
    'LocalAnswer',
    'reasoningPlan',
    'replaysNone',
    'replaysOnDeployment',
    'requestOnDeployment',
    'StreamTranslator',
    'tokenCount',
    'Translator',
    'unsupportedSetting',
    'upstreamError',
    'UpstreamRequest',
    'withReplayableTurns',
  ],
};

const TOOLKIT_DIR = 'src/toolkit';
/** Folders whose subfolders are plugins: the repository's, and the fourth family kept as a test fixture. */
const PLUGIN_ROOTS = ['plugins', 'test/fixtures/plugins'];

const byName = (a: string, b: string): number => a.localeCompare(b, 'en', { sensitivity: 'base' }) || a.localeCompare(b);

/** Every .ts file under a folder, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sources(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

const parse = (file: string): ts.SourceFile => ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);

/** The names a module exports, sorted; an `export *` shows as `*` (a barrel of everything is not a door). */
function exportedNames(file: string): string[] {
  const names: string[] = [];
  for (const statement of parse(file).statements) {
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause;
      if (!clause) names.push('*');
      else if (ts.isNamedExports(clause)) names.push(...clause.elements.map((element) => element.name.text));
      else names.push(`* as ${clause.name.text}`);
    } else if (ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      const name = (statement as ts.DeclarationStatement).name;
      names.push(name && ts.isIdentifier(name) ? name.text : '(unnamed export)');
    }
  }
  return names.sort(byName);
}

/** Every module a file names: static imports and re-exports, `import type`, dynamic `import()` and `import('…')` types. */
function specifiersOf(file: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
      found.push(node.moduleSpecifier.text);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0]))
      found.push(node.arguments[0].text);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal))
      found.push(node.argument.literal.text);
    ts.forEachChild(node, visit);
  };
  visit(parse(file));
  return found;
}

/** The names a file imports from the contract and the toolkits (as exported, before any `as`). */
function doorNamesOf(file: string): string[] {
  return parse(file).statements.flatMap((statement) => {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) return [];
    if (!/src\/(plugin-api|toolkit\/[a-z-]+)\.js$/.test(statement.moduleSpecifier.text)) return [];
    const bindings = statement.importClause?.namedBindings;
    return bindings && ts.isNamedImports(bindings) ? bindings.elements.map((element) => (element.propertyName ?? element.name).text) : [];
  });
}

/**
 * Contract names no plugin imports today and still the contract's: the types of what a setup
 * receives and returns (inferred inside `definePlugin`), named as soon as a helper takes them.
 */
const VOCABULARY = ['PluginContext', 'PluginHooks'];

/** The folder of the plugin a file belongs to: `plugins/<name>`. */
function pluginOf(file: string): string {
  const root = PLUGIN_ROOTS.find((candidate) => file.startsWith(candidate + sep));
  if (!root) throw new Error(`${file} is under no plugin folder`);
  return join(root, relative(root, file).split(sep)[0] ?? '');
}

/** Why a plugin file may not name `specifier`, or null when it may. */
function refusal(file: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null; // node: builtins and npm packages
  const target = relative(process.cwd(), resolve(dirname(file), specifier)).replace(/\.js$/, '.ts');
  const own = pluginOf(file);
  if (target.startsWith(own + sep)) return null;
  if (target === 'src/plugin-api.ts') return null;
  if (dirname(target) === TOOLKIT_DIR && Object.hasOwn(TOOLKITS, target.slice(TOOLKIT_DIR.length + 1))) return null;
  // A test fixture may borrow a repository plugin's file (zeta runs gamma's simulator); a plugin may not.
  if (target.startsWith('plugins' + sep))
    return file.startsWith('plugins' + sep) ? `another plugin's file (${target}); share it through the core instead` : null;
  if (PLUGIN_ROOTS.some((root) => target.startsWith(root + sep))) return `another plugin's file (${target})`;
  return `a core module other than src/plugin-api.ts and src/toolkit/* (${target})`;
}

t.test('src/plugin-api.ts exports the contract, exactly', async (t) => {
  t.same(exportedNames('src/plugin-api.ts'), [...CONTRACT].sort(byName), 'a name joins or leaves the contract in this list');
});

t.test('each toolkit module exports its list, exactly, and every toolkit module is listed', async (t) => {
  const files = readdirSync(TOOLKIT_DIR)
    .filter((name) => name.endsWith('.ts'))
    .sort();
  t.same(files, Object.keys(TOOLKITS).sort(), `the modules of ${TOOLKIT_DIR}`);
  for (const [name, exported] of Object.entries(TOOLKITS)) {
    t.same(exportedNames(join(TOOLKIT_DIR, name)), [...exported].sort(byName), `${TOOLKIT_DIR}/${name}`);
    t.match(
      readFileSync(join(TOOLKIT_DIR, name), 'utf8'),
      /^\/\*\*\n( \* .+\n)+ \*\/\n/,
      `${TOOLKIT_DIR}/${name} opens with its paragraph: what it is for, who uses it`,
    );
  }
});

t.test('a contract name is in one door only', async (t) => {
  const doors = [
    ['src/plugin-api.ts', CONTRACT] as const,
    ...Object.entries(TOOLKITS).map(([name, exported]) => [`${TOOLKIT_DIR}/${name}`, exported] as const),
  ];
  const seen = new Map<string, string>();
  const twice: string[] = [];
  for (const [door, names] of doors) {
    for (const name of names) {
      const first = seen.get(name);
      if (first) twice.push(`${name}: ${first} and ${door}`);
      else seen.set(name, door);
    }
  }
  t.same(twice, [], 'no name exported by two doors');
});

t.test('plugins reach the core only through the contract and the toolkits, and no other plugin', async (t) => {
  const files = PLUGIN_ROOTS.flatMap(sources);
  t.ok(files.length > 80, 'every plugin file is read');
  const refused = files.flatMap((file) =>
    specifiersOf(file).flatMap((specifier) => {
      const why = refusal(file, specifier);
      return why ? [`${file} imports '${specifier}': ${why}`] : [];
    }),
  );
  t.same(refused, [], 'every import of every plugin file');
});

t.test('the import rule refuses what it should', async (t) => {
  t.equal(refusal('plugins/auth/index.ts', '../../src/plugin-api.js'), null, 'the contract');
  t.equal(refusal('plugins/auth/index.ts', '../../src/toolkit/secrets.js'), null, 'a toolkit');
  t.equal(refusal('plugins/vendor-beta/stream.ts', './response.js'), null, 'its own file');
  t.equal(refusal('plugins/auth/index.ts', 'node:crypto'), null, 'a builtin');
  t.match(refusal('plugins/auth/index.ts', '../../src/http/errors.js'), /core module other than .*\(src\/http\/errors\.ts\)/, 'a core module');
  t.match(refusal('plugins/auth/index.ts', '../../src/toolkit/unlisted.js'), /core module other than/, 'an unlisted toolkit');
  t.match(
    refusal('plugins/vendor-gamma/stream.ts', '../vendor-alpha/errors.js'),
    /another plugin's file \(plugins\/vendor-alpha\/errors\.ts\)/,
    "another plugin's file",
  );
  t.equal(
    refusal('test/fixtures/plugins/vendor-zeta/index.ts', '../../../../plugins/vendor-gamma/simulator.js'),
    null,
    "a fixture borrowing a repository plugin's file",
  );
  t.match(
    refusal('test/fixtures/plugins/vendor-zeta/index.ts', '../../../../src/http/errors.js'),
    /core module other than/,
    'a fixture reaching into the core',
  );
  t.same(specifiersOf('test/unit/plugin-surface.test.ts').slice(0, 4), ['node:fs', 'node:path', 'tap', 'typescript'], 'imports are read from the source');
});

t.test('every name of the contract and the toolkits is imported by some plugin', async (t) => {
  const imported = new Set(PLUGIN_ROOTS.flatMap(sources).flatMap(doorNamesOf));
  const exported = [...CONTRACT, ...Object.values(TOOLKITS).flat()];
  t.same(
    exported.filter((name) => !imported.has(name) && !VOCABULARY.includes(name)),
    [],
    'a name no plugin uses leaves its door',
  );
  t.same(
    VOCABULARY.filter((name) => !CONTRACT.includes(name)),
    [],
    "the vocabulary is the contract's",
  );
});

t.test('docs/plugins.md has a row for each toolkit module, and none for another', async (t) => {
  const section =
    readFileSync('docs/plugins.md', 'utf8')
      .split('\n## ')
      .find((part) => part.startsWith('The contract and the toolkits')) ?? '';
  const rows = [...section.matchAll(/^\| `([a-z-]+)` \|/gm)].map((m) => `${m[1]}.ts`);
  t.same(rows.sort(), Object.keys(TOOLKITS).sort(), 'the toolkit table');
});
