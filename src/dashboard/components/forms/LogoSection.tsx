import { useState } from 'preact/hooks';
import type { Form } from '../../../client/schemas.js';
import { FormFunnelError } from '../../api.js';
import { formatBytes, logoAccept, logoLimits, logoTypes } from '../../forms/logo-limits.js';
import { ConfirmButton } from '../ConfirmButton.js';
import { ProblemNotice } from '../ProblemNotice.js';

type Logo = Form['logo'];

const typeNames = Object.values(logoTypes);
const typeList = `${typeNames.slice(0, -1).join(', ')} or ${typeNames.at(-1)}`;
const limits =
  `${typeList} image, at most ${formatBytes(logoLimits.maxBytes)}, ` +
  `${logoLimits.minPixels} to ${logoLimits.maxPixels} pixels wide and high.`;

type Refusal = { title: string; message: string; hint: string };

const wrongType = (message: string): Refusal => ({
  title: 'Not an image type the page shows',
  message,
  hint: `Choose a ${typeList} image; SVG is never taken.`,
});

/** What a refused image is, in words, for the statuses only an image gets; other refusals are ProblemNotice's. */
function imageRefusal(error: unknown): Refusal | undefined {
  if (!(error instanceof FormFunnelError)) return undefined;
  const { message } = error;
  if (error.status === 413)
    return { title: 'The image is too large', message, hint: `A logo can be at most ${formatBytes(logoLimits.maxBytes)}.` };
  if (error.status === 415) return wrongType(message);
  if (error.status === 422) return { title: 'The image cannot be used', message, hint: `A logo is a ${limits}` };
  return undefined;
}

/** A chosen file of a type the API does not take is not sent (the client refuses it too): said at once. */
const typeRefusal = (file: File | undefined): Refusal | undefined =>
  file && !Object.hasOwn(logoTypes, file.type)
    ? wrongType(`“${file.name}” is ${file.type ? `of type ${file.type}` : 'of a type the browser does not know'}.`)
    : undefined;

/**
 * The form's logo: the image the hosted page shows at the top, as the API serves it, and (for someone who may edit a
 * published form) a file to upload in its place or a button to remove it. Both are saved at once, apart from the
 * draft's Publish, with the form's ETag; a refused image says why beside the file input.
 */
export function LogoSection(props: {
  logo: Logo | undefined;
  /** None for a form not created yet. */
  formId: string | undefined;
  readOnly: boolean;
  onUpload: (file: File) => Promise<Form>;
  onRemove: () => Promise<Form>;
  onReload: () => void;
}) {
  const { logo } = props;
  const [chosen, setChosen] = useState<File | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [status, setStatus] = useState('');
  // A new input after each upload, so that the file just sent is not offered again.
  const [inputKey, setInputKey] = useState(0);

  const run = async (what: () => Promise<Form>, done: (form: Form) => string) => {
    setBusy(true);
    setError(undefined);
    setStatus('');
    try {
      const form = await what();
      setStatus(done(form));
      setChosen(undefined);
      setInputKey((key) => key + 1);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  const upload = () =>
    chosen &&
    run(
      () => props.onUpload(chosen),
      (form) => `Logo uploaded: version ${form.version}.`,
    );
  const remove = () => run(props.onRemove, (form) => `Logo removed: version ${form.version}.`);

  const reload = () => {
    setError(undefined);
    props.onReload();
  };

  const refusal = typeRefusal(chosen) ?? imageRefusal(error);
  const canChange = !props.readOnly && props.formId !== undefined;
  return (
    <section aria-labelledby="logo-heading">
      <h2 id="logo-heading">Logo</h2>
      {logo ? (
        <figure class="logo-current">
          <img src={logo.url} alt="The form's current logo" width={logo.width} height={logo.height} />
          <figcaption class="muted">
            {logoTypes[logo.content_type]}, {logo.width} × {logo.height} pixels, {formatBytes(logo.size)}
          </figcaption>
        </figure>
      ) : (
        <p class="muted">No logo: the hosted page shows none.</p>
      )}
      {!props.readOnly && props.formId === undefined && <p class="muted">Once the form is published, you can give it a logo here.</p>}
      {canChange && (
        <>
          <div class="field logo-file">
            <label for="logo-file">{logo ? 'New logo image' : 'Logo image'}</label>
            <input
              key={inputKey}
              id="logo-file"
              type="file"
              accept={logoAccept}
              aria-invalid={refusal ? true : undefined}
              aria-describedby={refusal ? 'logo-file-hint logo-refusal' : 'logo-file-hint'}
              onChange={(event) => {
                setChosen(event.currentTarget.files?.[0]);
                setError(undefined);
                setStatus('');
              }}
            />
            <p class="muted hint" id="logo-file-hint">
              {limits} Shown at the top of the hosted page; saved as soon as you upload or remove it, not with Publish.
            </p>
            {refusal && (
              <div class="problem" id="logo-refusal" role="alert">
                <p class="problem-title">{refusal.title}</p>
                <p>{refusal.message}</p>
                <p>{refusal.hint}</p>
              </div>
            )}
          </div>
          {!refusal && (
            <ProblemNotice error={error} onReload={error instanceof FormFunnelError && error.status === 412 ? reload : undefined} />
          )}
          <div class="actions">
            <button type="button" disabled={!chosen || busy || typeRefusal(chosen) !== undefined} onClick={upload}>
              {logo ? 'Upload new logo' : 'Upload logo'}
            </button>
            {logo && (
              <ConfirmButton label="Remove logo" confirm="Remove the logo from the hosted page?" disabled={busy} onConfirm={remove} />
            )}
          </div>
          <p role="status">{busy ? 'Saving the logo…' : status}</p>
        </>
      )}
    </section>
  );
}
