/**
 * What a Hugging Face repository id may be, for `hfModel`, `tokenizer` and `dataset.hf`: the Hub's own rules
 * (huggingface/huggingface_hub src/huggingface_hub/utils/_validators.py `validate_repo_id`, read at commit 0a57df9:
 * at most one `/`; each part ASCII letters, digits, `-`, `_`, `.`, starting and ending with a letter, digit or `_`;
 * the name 1 to 96 characters; no `--` or `..`; not ending in `.git`), with the owner required here: an id without
 * one (`gpt2`) names a legacy canonical repository that MaxText's downloads and this program's checks would read as
 * another. Each refusal says what to write instead. Pure.
 */

const PART = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?$/;
/** Control characters (C0, DEL, C1) and every kind of whitespace. */
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\s\u200b-\u200f\u2028\u2029\ufeff]/;

/** The `owner/name` inside a Hub URL (`https://huggingface.co/datasets/openai/gsm8k/tree/main` -> `openai/gsm8k`). */
function idInUrl(value: string): string | undefined {
  const m = /^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:www\.)?(?:huggingface\.co|hf\.co)\/(?:datasets\/|spaces\/)?([^/?#\s]+)\/([^/?#\s]+)/i.exec(value.trim());
  return m ? `${m[1]}/${m[2]}` : undefined;
}

/**
 * Why `value` is not a Hugging Face repository id `owner/name`, with the fix, or undefined when it is one. `example`
 * is an id of the right kind for the message (`Qwen/Qwen3-8B`, `openai/gsm8k`).
 */
export function hfIdProblem(value: string, example: string): string | undefined {
  if (value.trim() !== value && value.trim() !== '' && !INVISIBLE.test(value.trim())) {
    return `has spaces around it: write '${value.trim()}'`;
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value.trim()) || /^(?:www\.)?(?:huggingface\.co|hf\.co)\//i.test(value.trim())) {
    const id = idInUrl(value);
    return `is a URL, not a repository id: write ${id ? `'${id}'` : `the 'owner/name' it names, e.g. '${example}'`}`;
  }
  if (INVISIBLE.test(value)) return `contains a control character or a space: a repository id is 'owner/name', e.g. '${example}'`;
  const parts = value.split('/');
  if (parts.length === 1) return `names no owner: write 'owner/name' as the Hub shows it, e.g. '${example}'`;
  if (parts.length > 2) return `has ${parts.length - 1} '/': a repository id is 'owner/name', e.g. '${example}'`;
  const [owner, name] = parts;
  const bad = [owner, name].find((p) => !PART.test(p));
  if (bad !== undefined || value.includes('--') || value.includes('..') || value.endsWith('.git') || name.length > 96) {
    return (
      `is not a repository id: owner and name are letters, digits, '-', '_' or '.', neither starting nor ending with ` +
      `'-' or '.', without '--', '..' or a '.git' ending, the name at most 96 characters (huggingface_hub validate_repo_id), e.g. '${example}'`
    );
  }
  return undefined;
}
