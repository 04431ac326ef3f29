/**
 * Facts the code must share with the OpenAPI document. The domain cannot read YAML at run time, and some
 * numbers are stated only in the document's prose, so the few numbers and words the code needs are constants;
 * these tests fail as soon as they drift from the document.
 */
import { describe, expect, it } from 'vitest';
import { PUBLISHABLE_KEY_EXAMPLE } from '../../src/code-samples/request.js';
import type { ErrorCode } from '../../src/contract.js';
import type { Principal } from '../../src/domain/access.js';
import { CHALLENGE_LIFETIME_SECONDS } from '../../src/domain/challenges/proof-of-work.js';
import { AppError, errorClasses, MAX_REPORTED_ISSUES } from '../../src/domain/errors.js';
import { MAX_DEFINITION_BYTES } from '../../src/domain/forms/definition-size.js';
import { SCHEMA_DEFAULTS } from '../../src/domain/forms/field-defaults.js';
import { MAX_LOGO_BYTES, MAX_LOGO_PIXELS, MIN_LOGO_PIXELS } from '../../src/domain/forms/logo-image.js';
import { KEPT_VERSIONS } from '../../src/domain/forms/service.js';
import { DEFAULT_EXPIRE_PREVIOUS_AFTER_SECONDS } from '../../src/domain/integrations/service.js';
import { plansWithAttachedKeys } from '../../src/domain/keys/service.js';
import { MAX_CONDITION_DEPTH } from '../../src/domain/logic/check-condition.js';
import { MAX_METADATA_KEYS } from '../../src/domain/metadata.js';
import { oauthPlan } from '../../src/domain/oauth/authorize.js';
import { publishableKeyPattern } from '../../src/domain/public/publishable-keys.js';
import { RESUME_WINDOW_DAYS } from '../../src/domain/public/resume-token.js';
import { issueStartedToken, STARTED_TOKEN_LIFETIME_DAYS, verifyStartedToken } from '../../src/domain/public/started-token.js';
import { contextUrlPattern, MAX_CONTEXT_URL_LENGTH, MAX_USER_AGENT_LENGTH } from '../../src/domain/public/submissions.js';
import { ERASED_IDS_PER_EVENT } from '../../src/domain/submissions/erase.js';
import { INVITE_LIFETIME_DAYS } from '../../src/domain/team/service.js';
import { DOMAIN_ISSUE_CODES } from '../../src/domain/validation-issue.js';
import { defaultPageSize, defaultRateLimits, idempotencyTtlSeconds, maxBodyBytes, maxBodyDepth } from '../../src/http/documented-limits.js';
import { noSpamProtection } from '../../src/store/rows/forms.js';
import { defaultSearchScan } from '../../src/store/search-scan.js';
import { listAt, numberAt, textAt, valueAt } from '../support/openapi-files.js';

const rootDescription = (): string => textAt('openapi', 'info', 'description');

/** The rows of a Markdown table in a description, as arrays of cells without backticks. */
const tableRows = (description: string): string[][] =>
  description
    .split('\n')
    .filter((line) => /^\| `/.test(line))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim().replace(/`/g, '')),
    );

describe('the code agrees with the OpenAPI document', () => {
  it('when a field property has a schema default, then the domain falls back to the same value', () => {
    expect(SCHEMA_DEFAULTS.short_text.max_length).toBe(valueAt('components/schemas/ShortTextField', 'properties', 'max_length', 'default'));
    expect(SCHEMA_DEFAULTS.long_text.max_length).toBe(valueAt('components/schemas/LongTextField', 'properties', 'max_length', 'default'));
    expect(SCHEMA_DEFAULTS.rating.scale).toBe(valueAt('components/schemas/RatingField', 'properties', 'scale', 'default'));
    expect(valueAt('components/schemas/ChoiceOption', 'properties', 'score', 'default')).toBe(0);
    expect(valueAt('components/schemas/NumberField', 'properties', 'integer', 'default')).toBe(false);
    expect(valueAt('components/schemas/ShortTextField', 'properties', 'required', 'default')).toBe(false);
  });

  it("when an erasure lists its ids in submission.erased events, then at most the schema's maxItems per event", () => {
    const object = ['allOf', '1', 'properties', 'data', 'properties', 'object', 'properties', 'submission_ids', 'maxItems'];
    expect(ERASED_IDS_PER_EVENT).toBe(valueAt('components/schemas/SubmissionErasedEvent', ...object));
  });

  it('when a secret is rotated without expire_previous_after, then the overlap is the schema default', () => {
    expect(DEFAULT_EXPIRE_PREVIOUS_AFTER_SECONDS).toBe(
      valueAt('components/schemas/IntegrationSecretRotate', 'properties', 'expire_previous_after', 'default'),
    );
  });

  it('when errors are listed in a problem, then at most ProblemDetails.errors.maxItems are kept', () => {
    expect(MAX_REPORTED_ISSUES).toBe(numberAt('components/schemas/ProblemDetails', 'properties', 'errors', 'maxItems'));
  });

  it('when metadata is merged, then the key limit is the one Metadata and MetadataUpdate state', () => {
    expect(numberAt('components/schemas/Metadata', 'maxProperties')).toBe(MAX_METADATA_KEYS);
    expect(numberAt('components/schemas/MetadataUpdate', 'maxProperties')).toBe(MAX_METADATA_KEYS);
    expect(textAt('components/schemas/MetadataUpdate', 'description')).toContain(`At most ${MAX_METADATA_KEYS} keys may be stored`);
  });

  it('when conditions nest, then the limit is the one Condition describes', () => {
    expect(textAt('components/schemas/Condition', 'description')).toContain(`at most ${MAX_CONDITION_DEPTH} levels deep`);
  });

  it('when a form definition is measured, then the limit is the one createForm, updateForm and FormVersionSummary state', () => {
    expect(numberAt('components/schemas/FormVersionSummary', 'properties', 'definition_bytes', 'maximum')).toBe(MAX_DEFINITION_BYTES);
    expect(textAt('paths/forms', 'post', 'description')).toContain(`at most ${MAX_DEFINITION_BYTES} bytes`);
    expect(textAt('paths/forms_{id}', 'patch', 'description')).toContain(`at most ${MAX_DEFINITION_BYTES} bytes`);
    expect(textAt('components/schemas/ErrorCode', 'description')).toContain(`larger than ${MAX_DEFINITION_BYTES} bytes`);
  });

  it('when a logo is checked, then its size and pixel bounds are the ones FormLogo and setFormLogo state', () => {
    for (const type of ['image/png', 'image/jpeg', 'image/webp']) {
      expect(numberAt('paths/forms_{id}_logo', 'put', 'requestBody', 'content', type, 'schema', 'maxLength')).toBe(MAX_LOGO_BYTES);
    }
    expect(numberAt('components/schemas/FormLogo', 'properties', 'size', 'maximum')).toBe(MAX_LOGO_BYTES);
    for (const side of ['width', 'height']) {
      expect(numberAt('components/schemas/FormLogo', 'properties', side, 'minimum')).toBe(MIN_LOGO_PIXELS);
      expect(numberAt('components/schemas/FormLogo', 'properties', side, 'maximum')).toBe(MAX_LOGO_PIXELS);
    }
    expect(textAt('paths/forms_{id}_logo', 'put', 'description')).toContain(
      `at most ${MAX_LOGO_BYTES} bytes (256 KiB), between ${MIN_LOGO_PIXELS} and ${MAX_LOGO_PIXELS} pixels wide and high`,
    );
  });

  it('when versions are pruned, then the number kept is the one listFormVersions and getFormVersion state', () => {
    expect(textAt('paths/forms_{id}_versions', 'get', 'description')).toContain(`The latest ${KEPT_VERSIONS} versions are kept`);
    expect(textAt('paths/forms_{id}_versions_{version}', 'get', 'description')).toContain(`The latest ${KEPT_VERSIONS} versions are kept`);
  });

  it('when the domain reports an issue code, then ValidationIssue.code documents it ', () => {
    const description: string = textAt('components/schemas/ValidationIssue', 'properties', 'code', 'description');
    const documented = new Set([...description.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]));
    const undocumented = DOMAIN_ISSUE_CODES.filter((code) => !documented.has(code));
    expect(undocumented).toEqual([]);
  });

  it('when an error is built from its code, then its status and type are the ones the ErrorCode table lists', () => {
    const documented = Object.fromEntries(
      tableRows(textAt('components/schemas/ErrorCode', 'description')).map(([code, status, type]) => [
        code,
        { status: Number(status), type },
      ]),
    );
    expect(errorClasses).toEqual(documented);
    expect(Object.keys(errorClasses).sort()).toEqual([...listAt('components/schemas/ErrorCode', 'enum')].sort());
    for (const code of listAt('components/schemas/ErrorCode', 'enum') as ErrorCode[]) {
      expect(new AppError({ code, message: 'm' })).toMatchObject(documented[code]!);
    }
  });

  it('when a code has a type, then its status is one the ErrorType table allows for that type', () => {
    const statuses = Object.fromEntries(
      tableRows(textAt('components/schemas/ErrorType', 'description')).map(([type, status]) => [type, status!]),
    );
    for (const [code, { status, type }] of Object.entries(errorClasses)) {
      const allowed = statuses[type]!;
      const range = /^(\d+) to (\d+)$/.exec(allowed);
      const fits = range ? status >= Number(range[1]) && status <= Number(range[2]) : allowed.match(/\d{3}/g)!.map(Number).includes(status);
      expect(fits, `${code}: ${status} ${type} (ErrorType allows ${allowed})`).toBe(true);
    }
  });

  it('when a body is too large, then the limit is the 1 MiB PayloadTooLarge states', () => {
    const example = ['content', 'application/problem+json', 'examples', 'payload_too_large', 'value'];
    expect(textAt('components/responses/PayloadTooLarge', 'description')).toContain(`${maxBodyBytes / 1024 / 1024} MiB`);
    expect(numberAt('components/responses/PayloadTooLarge', ...example, 'details', 'max_body_bytes')).toBe(maxBodyBytes);
  });

  it('when a body nests deep, then the bound is the one the Requests section states', () => {
    expect(rootDescription()).toContain(`nest at most ${maxBodyDepth} levels deep`);
  });

  it('when an Idempotency-Key is reused, then the replay window is the one the header describes', () => {
    expect(textAt('components/parameters/Idempotency-Key', 'description')).toContain(`within ${idempotencyTtlSeconds / 3600} hours`);
    expect(rootDescription()).toContain(`within ${idempotencyTtlSeconds / 3600} hours`);
  });

  it('when a list is requested without a limit, then the page size is the limit parameter default', () => {
    expect(defaultPageSize).toBe(valueAt('components/parameters/Limit', 'schema', 'default'));
    expect(rootDescription()).toContain(`default ${defaultPageSize})`);
  });

  it('when q searches the submissions list, then its window and cap are the ones the q parameter and search_too_broad state', () => {
    const window = defaultSearchScan.window.toLocaleString('en');
    const cap = defaultSearchScan.cap.toLocaleString('en');
    const q = textAt('components/parameters/SubmissionSearch', 'description').replace(/\s+/g, ' ');
    expect(q).toContain(`are read ${window} at a time`);
    expect(q).toContain(`reads at most ${cap} submissions`);
    expect(q).toContain(`The export reads the whole list, ${window} rows at a time, without that ceiling`);
    expect(textAt('components/schemas/ErrorCode', 'description')).toContain(`\`q\` was checked on ${cap} submissions`);
    expect(textAt('paths/submissions_export', 'get', 'description').replace(/\s+/g, ' ')).toContain(`${window} submissions at a time`);
  });

  it('when nothing is configured, then the rate limits are the ones the document states', () => {
    const perKey = defaultRateLimits.perKeyPerSecond;
    const perWorkspace = defaultRateLimits.perWorkspacePerMinute.toLocaleString('en');
    const header = textAt('components/headers/X-RateLimit-Limit', 'description').replace(/\s+/g, ' ');
    expect(header).toContain(`${perKey} per second per key, ${perWorkspace} per minute per workspace`);
    expect(rootDescription().replace(/\s+/g, ' ')).toContain(
      `${perKey} requests per second per key and ${perWorkspace} per minute per workspace`,
    );
  });

  it('when a plan gates a feature, then the plans are the ones Plan describes', () => {
    const description = textAt('components/schemas/Plan', 'description');
    const plans = listAt('components/schemas/Plan', 'enum');
    const attached = /Form- and folder-attached keys need `([a-z]+)` or above/.exec(description)?.[1];
    expect(attached).toBeDefined();
    expect(plansWithAttachedKeys).toEqual(plans.slice(plans.indexOf(attached!)));
    expect(description).toContain(`OAuth needs \`${oauthPlan}\``);
  });

  it('when a page submits, then the referrer and user agent kept are the ones ContextUrl and SubmissionContextCreate allow', () => {
    // `source` escapes `/` as a literal does, so the document's pattern compiles to the same text.
    expect(contextUrlPattern.source).toBe(new RegExp(textAt('components/schemas/ContextUrl', 'pattern')).source);
    expect(numberAt('components/schemas/ContextUrl', 'maxLength')).toBe(MAX_CONTEXT_URL_LENGTH);
    expect(numberAt('components/schemas/SubmissionContextCreate', 'properties', 'user_agent', 'maxLength')).toBe(MAX_USER_AGENT_LENGTH);
    expect(numberAt('components/schemas/SubmissionContext', 'properties', 'user_agent', 'maxLength')).toBe(MAX_USER_AGENT_LENGTH);
  });

  it('when a partial public submission is created, then its resume window is the one createPublicSubmission and PublicSubmission state', () => {
    const window = `${RESUME_WINDOW_DAYS} days`;
    expect(textAt('paths/public_submissions', 'post', 'description').replace(/\s+/g, ' ')).toContain(`for ${window}`);
    expect(textAt('components/schemas/PublicSubmission', 'properties', 'resume_expires_at', 'description')).toContain(`(${window} after`);
  });

  it('when people join, sign in or are invited again, then those are audit event types and never webhook event types', () => {
    const people = ['member.invited', 'member.joined', 'member.signed_in', 'member.removed', 'invite.resent', 'invite.revoked'];
    expect(listAt('components/schemas/AuditEventType', 'enum')).toEqual(expect.arrayContaining(people));
    const webhookTypes = [...listAt('components/schemas/EventType', 'enum'), ...Object.keys(valueAt('openapi', 'webhooks') as object)];
    expect(people.filter((type) => webhookTypes.includes(type))).toEqual([]);
  });

  it('when an invite is created or sent again, then it stays pending for the days Invite, createInvite and resendInvite state', () => {
    const days = `${INVITE_LIFETIME_DAYS} days`;
    expect(textAt('components/schemas/Invite', 'properties', 'expires_at', 'description')).toMatch(
      new RegExp(`^${days} after it was created or last sent again`),
    );
    expect(textAt('paths/team_invites', 'post', 'description')).toContain(`it expires after ${days}`);
    expect(textAt('paths/team_invites_{id}_resend', 'post', 'description').replace(/\s+/g, ' ')).toContain(`expires ${days} from now`);
    expect(textAt('components/schemas/InviteStatus', 'description').replace(/\s+/g, ' ')).toContain(`${days} pass`);
  });

  it('when a started token is checked, then it expires when StartedToken and submitted_too_fast say', () => {
    const days = `${STARTED_TOKEN_LIFETIME_DAYS} days`;
    expect(textAt('components/schemas/StartedToken', 'description').replace(/\s+/g, ' ')).toContain(`expires ${days} after`);
    expect(textAt('components/schemas/ErrorCode', 'description')).toContain(`expired (${days} after`);
  });

  it('when a started token is issued, then it fits StartedToken, and what StartedToken allows is what is checked', () => {
    const pattern = new RegExp(textAt('components/schemas/StartedToken', 'pattern'));
    const maxLength = numberAt('components/schemas/StartedToken', 'maxLength');
    const principal = { publishable: { tokenSecret: Buffer.alloc(32, 7) } } as unknown as Principal;
    const formId = 'form_2kTz9QwErTy7UiOp4AsDfGhJ';
    const issued = issueStartedToken(principal, formId, new Date('2026-05-04T09:00:00.000Z'));
    expect(issued).toMatch(pattern);
    expect(issued.length).toBe(maxLength);
    const example = listAt('components/schemas/StartedToken', 'examples')[0] as string;
    expect(example).toMatch(pattern);
    // The spec's pattern and the checker's agree on form: a well-formed token of another signature is refused for
    // its signature, not its form.
    const [at, form, nonce] = issued.split('.');
    expect(verifyStartedToken(principal, `${at}.${form}.${nonce}.${'A'.repeat(43)}`, formId)).toBeUndefined();
  });

  it('when a challenge is issued, then it expires when Challenge and challenge_invalid say', () => {
    const minutes = `${CHALLENGE_LIFETIME_SECONDS / 60} minutes`;
    expect(textAt('components/schemas/Challenge', 'description').replace(/\s+/g, ' ')).toContain(`expires after ${minutes}`);
    expect(textAt('components/schemas/ErrorCode', 'description')).toContain(`has expired (${minutes})`);
  });

  it('when a form has no spam protection stored, then it reads as the SpamProtection defaults', () => {
    const properties = valueAt('components/schemas/SpamProtection', 'properties') as Record<string, unknown>;
    const defaults = Object.fromEntries(
      Object.keys(properties).map((name) => [name, valueAt('components/schemas/SpamProtection', 'properties', name, 'default')]),
    );
    expect(noSpamProtection).toEqual(defaults);
  });

  it('when a publishable key is made or recognised, then its value has the PublishableKeyValue pattern and the samples use its example', () => {
    expect(publishableKeyPattern.source).toBe(new RegExp(textAt('components/schemas/PublishableKeyValue', 'pattern')).source);
    expect(listAt('components/schemas/PublishableKeyValue', 'examples')).toEqual([PUBLISHABLE_KEY_EXAMPLE]);
  });
});
