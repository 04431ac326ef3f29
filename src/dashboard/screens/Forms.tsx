import { FormEditor } from '../components/forms/FormEditor.js';
import { FormsHome } from '../components/forms/FormsHome.js';
import { route } from '../router.js';

/** `/dashboard/forms`: the list of forms and folders; `forms/new` and `forms/<id>`: the builder. */
export function FormsScreen() {
  const [, id] = route.value.segments;
  if (id === undefined) return <FormsHome />;
  return <FormEditor formId={id === 'new' ? undefined : id} folderId={route.value.query.get('folder')} />;
}
