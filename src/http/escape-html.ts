/**
 * Text and attribute values put into HTML that the server writes: the five characters that could end an element or an
 * attribute become numeric character references, so a value can never open a tag, close a quoted attribute or start
 * an entity of its own.
 */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
