/**
 * The contract's types as the form, logic, submission and scoring modules use them. Every shape comes from
 * the generated OpenAPI types (`npm run generate`, through src/contract.ts), so a change to the spec reaches
 * the domain through the compiler, never by retyping.
 */
import type { Schemas } from '../contract.js';

/** The part of a form that logic, validation and scoring look at. */
export type FormDefinition = Pick<Schemas['Form'], 'steps' | 'logic' | 'scoring'>;

export type Step = Schemas['Step'];
export type Field = Schemas['Field'];
export type FieldType = Field['type'];
export type ChoiceOption = Schemas['ChoiceOption'];
export type TextField = Schemas['ShortTextField'] | Schemas['LongTextField'];
export type NumberField = Schemas['NumberField'];
export type RatingField = Schemas['RatingField'];
export type DateField = Schemas['DateField'];
export type MultipleChoiceField = Schemas['MultipleChoiceField'];

export type Condition = Schemas['Condition'];
export type FieldCondition = Schemas['FieldCondition'];
export type LogicRule = Schemas['LogicRule'];
export type ScoringRule = Schemas['ScoringRule'];
export type Grade = Schemas['Grade'];

export type ProblemDetails = Schemas['ProblemDetails'];

export type SubmissionStatus = Schemas['SubmissionStatus'];
export type ScoreContribution = Schemas['ScoreContribution'];

/**
 * Answers (or hidden values) by field ref. Typed `unknown` on purpose: the domain re-checks every value
 * against its field instead of trusting that the request validator ran, and the generated
 * `Record<string, AnswerValue>` is assignable to it.
 */
export type Answers = Readonly<Record<string, unknown>>;
