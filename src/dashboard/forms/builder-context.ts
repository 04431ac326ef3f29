/**
 * What every input of the builder needs besides its value: the last write's error, whose `details.errors` name
 * inputs by JSON pointer, and whether the person may change anything (a viewer may not).
 *
 * Each input's id is made from the pointer of the value it edits (`/steps/0/fields/1/ref` → `at-steps-0-fields-1-ref`),
 * so that an issue the API reports finds its input, and a summary of the issues can link to each.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { issuesUnder, type ValidationIssue } from '../api.js';

export interface Builder {
  error: unknown;
  readOnly: boolean;
}

export const BuilderContext = createContext<Builder>({ error: undefined, readOnly: true });
export const useBuilder = (): Builder => useContext(BuilderContext);

export const idAt = (pointer: string): string => `at${pointer.replaceAll('/', '-')}`;

/** The API's `details.errors` of a write, as pointer and message. */
export const issuesOf = (error: unknown): ValidationIssue[] => issuesUnder(error, '');

/** Whether an issue names exactly `pointer` (the input's own value, not one inside it). */
export const hasIssueAt = (error: unknown, pointer: string): boolean =>
  issuesUnder(error, pointer).some((issue) => issue.pointer === pointer);

/**
 * The id of the element an issue belongs to: its input's, or, for a pointer no input edits (a missing member, a
 * whole list), that of the nearest group that holds it. Undefined when nothing on the page holds it.
 */
export function targetOf(pointer: string): string | undefined {
  let at = pointer;
  for (;;) {
    if (document.getElementById(idAt(at))) return idAt(at);
    if (at === '') return undefined;
    at = at.slice(0, at.lastIndexOf('/'));
  }
}

/**
 * Moves focus, once the next render has put it on the page, to the first of `ids` that can take it: the title of an
 * added step, or a moved item's button (or, when that button is now disabled at the end of the list, its group).
 */
export function focusSoon(...ids: string[]): void {
  requestAnimationFrame(() => {
    for (const id of ids) {
      const element = document.getElementById(id);
      if (element && !(element as HTMLButtonElement).disabled) return element.focus();
    }
  });
}
