import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { compileValidator, ValidationError } from '../config/validate.js';
import { FAMILY_NAME } from '../vendors/vendor.js';
import { pricePerTokenNanos, type Nanos } from './money.js';
import { reasoningSchema, reasoningSpec, type RawReasoning, type ReasoningSpec } from './reasoning.js';

export const CAPABILITIES = ['tools', 'vision', 'json', 'embeddings'] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** Dollars per 1M tokens, as written in the YAML, and the exact per-token figure derived from it. */
export interface Price {
  list: string;
  charged: string;
  listNanosPerToken: Nanos;
  chargedNanosPerToken: Nanos;
}

/**
 * The input price, with the vendor's prompt-cache rates (docs/caching.md#pricing): list prices per
 * token of prompt tokens read from and written to the cache, the input list price where the
 * catalogue gives none.
 */
export interface InputPrice extends Price {
  /** As written in the YAML (`price.input.cache_read`, `cache_write`, `cache_write_1h`), or null when not given. */
  cacheRead: string | null;
  cacheWrite: string | null;
  cacheWrite1h: string | null;
  cacheReadNanosPerToken: Nanos;
  cacheWriteNanosPerToken: Nanos;
  /** A one-hour cache write (alpha's `ttl: "1h"`): `cache_write_1h`, else the (five-minute) `cache_write` rate. */
  cacheWrite1hNanosPerToken: Nanos;
}

export interface ModelEntry {
  id: string;
  /** The vendor family that serves it (declared by a vendor plugin). */
  family: string;
  /** The name the vendor knows the model by. */
  upstream: string;
  created: number;
  ownedBy: string;
  output: Price;
  input: InputPrice;
  capabilities: ReadonlySet<Capability>;
  maxOutputTokens: number;
  aliases: readonly string[];
  /** How the model reasons (docs/reasoning.md): its vendor's style of setting and the effort table. */
  reasoning: ReasoningSpec;
}

export interface FamilyEntry {
  ownedBy: string;
  /** The vendor's native embedding model, if the family offers embeddings. */
  embeddingModel: string | null;
}

interface RawPrice {
  list: string;
  charged: string;
}
interface RawInputPrice extends RawPrice {
  cache_read?: string;
  cache_write?: string;
  cache_write_1h?: string;
}
interface RawModel {
  id: string;
  family: string;
  upstream?: string;
  created: number;
  price: { output: RawPrice; input: RawInputPrice };
  capabilities: Capability[];
  max_output_tokens: number;
  aliases: string[];
  reasoning?: RawReasoning;
}
interface RawCatalogue {
  families: Record<string, { owned_by: string; embedding_model?: string }>;
  models: RawModel[];
}

/** At most three decimals keeps per-token prices whole nano-dollars (see money.ts). */
const priceString = { type: 'string', pattern: '^\\d{1,6}(\\.\\d{1,3})?$' } as const;
const price = {
  type: 'object',
  additionalProperties: false,
  required: ['list', 'charged'],
  properties: { list: priceString, charged: priceString },
} as const;
/** The input price may add the vendor's prompt-cache list rates (reads, writes, one-hour writes), per 1M tokens like the rest. */
const inputPrice = {
  ...price,
  properties: { ...price.properties, cache_read: priceString, cache_write: priceString, cache_write_1h: priceString },
} as const;
const family = {
  type: 'object',
  additionalProperties: false,
  required: ['owned_by'],
  properties: { owned_by: { type: 'string', minLength: 1 }, embedding_model: { type: 'string', minLength: 1 } },
} as const;

const catalogueSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['families', 'models'],
  properties: {
    // Which families may appear is decided by the enabled vendor plugins (Catalogue.checkFamilies).
    families: { type: 'object', minProperties: 1, propertyNames: { pattern: FAMILY_NAME.source }, additionalProperties: family },
    models: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'family', 'created', 'price', 'capabilities', 'max_output_tokens'],
        properties: {
          id: { type: 'string', pattern: '^[a-z0-9][a-z0-9.-]*$' },
          family: { type: 'string', pattern: FAMILY_NAME.source },
          upstream: { type: 'string', minLength: 1 },
          created: { type: 'integer', minimum: 0 },
          price: {
            type: 'object',
            additionalProperties: false,
            // Both: the input list price is what prompt tokens cost the operator upstream (the
            // upstream cost limit counts it), so no model may leave it out.
            required: ['output', 'input'],
            properties: { output: price, input: inputPrice },
          },
          capabilities: { type: 'array', uniqueItems: true, items: { enum: [...CAPABILITIES] } },
          max_output_tokens: { type: 'integer', minimum: 1 },
          aliases: { type: 'array', default: [], items: { type: 'string', minLength: 1 } },
          reasoning: reasoningSchema,
        },
      },
    },
  },
} as const;

/** Model IDs are matched case-insensitively with surrounding whitespace ignored (docs/api-contract.md#model-ids). */
export const normaliseModelId = (id: string): string => id.trim().toLowerCase();

function toPrice(raw: RawPrice): Price {
  return {
    list: raw.list,
    charged: raw.charged,
    listNanosPerToken: pricePerTokenNanos(raw.list),
    chargedNanosPerToken: pricePerTokenNanos(raw.charged),
  };
}

function toInputPrice(raw: RawInputPrice): InputPrice {
  const base = toPrice(raw);
  const cacheWriteNanosPerToken = raw.cache_write === undefined ? base.listNanosPerToken : pricePerTokenNanos(raw.cache_write);
  return {
    ...base,
    cacheRead: raw.cache_read ?? null,
    cacheWrite: raw.cache_write ?? null,
    cacheWrite1h: raw.cache_write_1h ?? null,
    cacheReadNanosPerToken: raw.cache_read === undefined ? base.listNanosPerToken : pricePerTokenNanos(raw.cache_read),
    cacheWriteNanosPerToken,
    cacheWrite1hNanosPerToken: raw.cache_write_1h === undefined ? cacheWriteNanosPerToken : pricePerTokenNanos(raw.cache_write_1h),
  };
}

export class Catalogue {
  readonly models: readonly ModelEntry[];
  readonly families: ReadonlyMap<string, FamilyEntry>;
  private readonly byName = new Map<string, ModelEntry>();

  constructor(
    raw: RawCatalogue,
    /** The file it came from, named in errors. */
    readonly source: string,
  ) {
    this.families = new Map(
      Object.entries(raw.families).map(([name, family]) => [name, { ownedBy: family.owned_by, embeddingModel: family.embedding_model ?? null }]),
    );
    this.models = raw.models.map((model, index) => {
      const family = this.families.get(model.family);
      if (!family) throw new ValidationError(source, `/models/${index}/family`, `"${model.family}" is not listed under families`);
      const entry: ModelEntry = {
        id: model.id,
        family: model.family,
        upstream: model.upstream ?? model.id,
        created: model.created,
        ownedBy: family.ownedBy,
        output: toPrice(model.price.output),
        input: toInputPrice(model.price.input),
        capabilities: new Set(model.capabilities),
        maxOutputTokens: model.max_output_tokens,
        aliases: model.aliases,
        reasoning: reasoningSpec(model.reasoning),
      };
      for (const name of [model.id, ...model.aliases]) {
        const key = normaliseModelId(name);
        const taken = this.byName.get(key);
        if (taken) throw new ValidationError(source, `/models/${index}`, `name "${name}" is already used by ${taken.id}`);
        this.byName.set(key, entry);
      }
      return entry;
    });
  }

  /** The family entry of a model's family (every model's family is listed: checked at load). */
  family(name: string): FamilyEntry {
    return this.families.get(name) as FamilyEntry;
  }

  /**
   * The catalogue's families that no enabled vendor plugin serves: their models stay listed and
   * answer 503 naming the family until its plugin is enabled (a vendor switched off for a while
   * need not be cut out of the catalogue).
   */
  unservedFamilies(served: readonly string[]): string[] {
    return [...this.families.keys()].filter((name) => !served.includes(name));
  }

  /** Canonical entry for an ID or alias (case-insensitive, trimmed), or undefined. */
  resolve(name: string): ModelEntry | undefined {
    return this.byName.get(normaliseModelId(name));
  }
}

const validateCatalogue = compileValidator<RawCatalogue>(catalogueSchema, 'catalogue');

export function loadCatalogue(path: string): Catalogue {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ValidationError(path, '', `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    return new Catalogue(validateCatalogue(parseYaml(text)), path);
  } catch (error) {
    if (error instanceof ValidationError) throw new ValidationError(path, error.path, error.detail);
    throw error;
  }
}
