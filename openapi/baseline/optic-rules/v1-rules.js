// Breaking changes that Optic's built-in `breaking-changes` ruleset lets through, for the v1 gate
// (`npm run breaking`, configured in optic.yml). Optic loads this file with require(), hence plain CommonJS.
//
// "Narrower" means fewer values are accepted: a request may no longer send what it could (a client breaks),
// a response may now carry what it could not (a client's parser or storage breaks).
const path = require('node:path');

// @useoptic/rulesets-base is Optic's own dependency: resolve it from Optic so this file uses the same copy.
const opticDir = path.dirname(require.resolve('@useoptic/optic/package.json'));
const { Ruleset, OperationRule, ResponseRule, PropertyRule, RuleError } = require(
  require.resolve('@useoptic/rulesets-base', { paths: [opticDir] }),
);

const BREAKING = 'This is a breaking change.';

// Each keyword bounds the accepted values from one side: `lower` bounds grow to narrow, `upper` bounds shrink.
const BOUNDS = [
  ['maxLength', 'upper'],
  ['maximum', 'upper'],
  ['exclusiveMaximum', 'upper'],
  ['maxItems', 'upper'],
  ['maxProperties', 'upper'],
  ['minLength', 'lower'],
  ['minimum', 'lower'],
  ['exclusiveMinimum', 'lower'],
  ['minItems', 'lower'],
  ['minProperties', 'lower'],
];
// Keywords whose values cannot be ordered: adding or changing one may reject values that were accepted.
const RESTRICTIONS = ['pattern', 'format', 'multipleOf'];

const show = (value) => (value === undefined ? 'none' : JSON.stringify(value));

/** How `after` accepts fewer values than `before` (an empty list when it does not). */
function narrowings(before = {}, after = {}) {
  const found = [];
  for (const [keyword, side] of BOUNDS) {
    const was = before[keyword];
    const now = after[keyword];
    // JSON Schema 3.0 used booleans for exclusiveMinimum/Maximum; only numeric bounds are compared.
    if (typeof now !== 'number' || (was !== undefined && typeof was !== 'number')) continue;
    if (was === undefined || (side === 'upper' ? now < was : now > was)) {
      found.push(`${keyword} ${show(was)} -> ${show(now)}`);
    }
  }
  for (const keyword of RESTRICTIONS) {
    if (after[keyword] !== undefined && after[keyword] !== before[keyword]) {
      found.push(`${keyword} ${show(before[keyword])} -> ${show(after[keyword])}`);
    }
  }
  if (before.uniqueItems !== true && after.uniqueItems === true) found.push('uniqueItems false -> true');
  if (before.additionalProperties !== false && after.additionalProperties === false) {
    found.push('additionalProperties -> false');
  }
  return found;
}

const enumOf = (schema) => (schema && Array.isArray(schema.enum) ? schema.enum : schema && 'const' in schema ? [schema.const] : null);

const operationIsKept = (_operation, context) => context.operation.change !== 'removed';

const preventParameterRemoval = new OperationRule({
  name: 'prevent parameter removal',
  matches: operationIsKept,
  rule: (operation) => {
    for (const [kind, where] of [
      ['queryParameter', 'query'],
      ['headerParameter', 'header'],
      ['cookieParameter', 'cookie'],
    ]) {
      operation[kind].removed((before) => {
        // Unknown query parameters are rejected with 400, so a client still sending it breaks.
        throw new RuleError({ message: `cannot remove ${where} parameter '${before.value.name}'. ${BREAKING}` });
      });
    }
  },
});

const preventParameterNarrowing = new OperationRule({
  name: 'prevent narrowing parameter values',
  rule: (operation) => {
    for (const [kind, where] of [
      ['queryParameter', 'query'],
      ['pathParameter', 'path'],
      ['headerParameter', 'header'],
      ['cookieParameter', 'cookie'],
    ]) {
      operation[kind].changed((before, after) => {
        const found = narrowings(before.value.schema, after.value.schema);
        if (found.length) {
          throw new RuleError({
            message: `${where} parameter '${after.value.name}' accepts fewer values (${found.join(', ')}). ${BREAKING}`,
          });
        }
      });
    }
  },
});

const isInRequest = (property) => 'inRequest' in property.location.conceptualLocation;

const preventPropertyRangeBreak = new PropertyRule({
  name: 'prevent narrowing request values or widening response values',
  rule: (property) => {
    property.changed((before, after) => {
      const was = before.value.flatSchema;
      const now = after.value.flatSchema;
      if (isInRequest(after)) {
        const found = narrowings(was, now);
        if (found.length) {
          throw new RuleError({
            message: `request property '${after.value.key}' accepts fewer values (${found.join(', ')}). ${BREAKING}`,
          });
        }
      } else {
        const found = narrowings(now, was);
        if (found.length) {
          throw new RuleError({
            message: `response property '${after.value.key}' may carry values it could not before (constraint relaxed: ${found.join(', ')}). ${BREAKING}`,
          });
        }
      }
    });
  },
});

const preventResponseEnumRemoval = new PropertyRule({
  name: 'prevent removing response enum values',
  rule: (property) => {
    property.changed((before, after) => {
      if (isInRequest(after)) return; // Optic's own rule covers request enums.
      const was = enumOf(before.value.flatSchema);
      const now = enumOf(after.value.flatSchema);
      if (!was || !now) return;
      const removed = was.filter((value) => !now.includes(value));
      if (removed.length) {
        // Clients match on these values (filters, switch statements, stored states).
        throw new RuleError({
          message: `cannot remove enum value${removed.length > 1 ? 's' : ''} ${removed.map(show).join(', ')} from response property '${after.value.key}'. ${BREAKING}`,
        });
      }
    });
  },
});

const preventResponseHeaderRemoval = new ResponseRule({
  name: 'prevent response header removal',
  matches: (_response, context) => context.operation.change !== 'removed',
  rule: (response) => {
    response.header.removed((before) => {
      throw new RuleError({ message: `cannot remove response header '${before.value.name}'. ${BREAKING}` });
    });
  },
});

module.exports = {
  configSchema: { type: 'object' },
  rulesetConstructor: () =>
    new Ruleset({
      name: 'Form-Funnel v1 contract',
      rules: [
        preventParameterRemoval,
        preventParameterNarrowing,
        preventPropertyRangeBreak,
        preventResponseEnumRemoval,
        preventResponseHeaderRemoval,
      ],
    }),
};
