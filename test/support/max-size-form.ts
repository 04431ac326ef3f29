/**
 * A form whose definition is as close to a byte budget as the schema allows: 50 steps of short-text fields,
 * a logic rule per step and a scoring rule per field of the first steps, then step descriptions to fill
 * the rest. Used by the tests of the definition cap and by the event-loop bench.
 */
const STEPS = 50;

interface Parts {
  steps: Array<Record<string, unknown>>;
  logic: Array<Record<string, unknown>>;
  scoring: { rules: Array<Record<string, unknown>>; grades: Array<Record<string, unknown>> };
  /** Serialized bytes of { steps, logic, scoring }, as the server counts them. */
  bytes: number;
  /** Answers to as many fields as a submission may carry (`answers` has `maxProperties: 500`). */
  answers: Record<string, string>;
}

const bytesOf = (definition: Pick<Parts, 'steps' | 'logic' | 'scoring'>) =>
  Buffer.byteLength(JSON.stringify({ steps: definition.steps, logic: definition.logic, scoring: definition.scoring }), 'utf8');

function build(fieldsPerStep: number): Omit<Parts, 'bytes' | 'answers'> {
  const steps = Array.from({ length: STEPS }, (_, step) => ({
    id: `step_${step}`,
    title: `Step ${step}`,
    fields: Array.from({ length: fieldsPerStep }, (_, field) => ({
      type: 'short_text',
      ref: `s${step}_f${field}`,
      label: `Question ${field} of step ${step}`,
      required: false,
      max_length: 255,
    })),
  }));
  // Rules that never match, so a submission walks every step and every rule is evaluated.
  const logic = steps.slice(0, -1).map((step, index) => ({
    id: `rule_${index}`,
    from_step: step.id,
    when: { field: `s${index}_f0`, op: 'equals', value: 'never' },
    then: { action: 'jump_to_step', step: `step_${STEPS - 1}` },
  }));
  const rules = Array.from({ length: Math.min(100, STEPS * fieldsPerStep) }, (_, index) => ({
    id: `points_${index}`,
    when: { field: `s${Math.floor(index / fieldsPerStep)}_f${index % fieldsPerStep}`, op: 'is_answered' },
    points: 1,
  }));
  const grades = [
    { label: 'A', min_score: 80 },
    { label: 'B', min_score: 40 },
    { label: 'C', min_score: 0 },
  ];
  return { steps, logic, scoring: { rules, grades } };
}

/** The definition of at most `maxBytes` serialized bytes (and within `slack` bytes of it when the schema allows). */
export function maxSizeFormParts(maxBytes: number): Parts {
  let fieldsPerStep = 1;
  while (fieldsPerStep < 50 && bytesOf(build(fieldsPerStep + 1)) <= maxBytes) fieldsPerStep++;
  const definition = build(fieldsPerStep);
  let room = maxBytes - bytesOf(definition);
  const overhead = Buffer.byteLength(',"description":""');
  for (const step of definition.steps) {
    if (room <= overhead) break;
    const length = Math.min(2000, room - overhead);
    step.description = 'd'.repeat(length);
    room -= overhead + length;
  }
  const answers = Object.fromEntries(
    definition.steps.flatMap((step) => (step.fields as Array<{ ref: string }>).map((field) => [field.ref, 'an answer'])).slice(0, 500),
  );
  return { ...definition, bytes: bytesOf(definition), answers };
}

export function maxSizeFormBody(parts: Parts, name: string): Record<string, unknown> {
  return { name, steps: parts.steps, logic: parts.logic, scoring: parts.scoring };
}
