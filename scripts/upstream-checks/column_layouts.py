"""Which column layouts MaxText maxtext-v0.2.4's own data processing accepts (issue 44 item 3), run on local data.

SFT: hf_data_processing.py l.339-355 calls data_processing_utils.validate_and_configure_sft_columns, then
instruction_data_processing.convert_to_conversational_format (only question/answer become messages, l.203-211), then
asserts input_pipeline_utils.is_conversational. DPO: the `tokenization` map of input_pipeline_utils.py (l.317-326:
a string is tokenized, a list is tokenized element by element) before DPODataFormatting. Each layout is a local
datasets.Dataset; each line says whether MaxText's functions took it.

Usage: python column_layouts.py <tokenizer_dir>
"""
import json
import sys

import datasets
from transformers import AutoTokenizer

from maxtext.input_pipeline import data_processing_utils, input_pipeline_utils, instruction_data_processing

MSG = lambda role, text: [{"role": role, "content": text}]  # noqa: E731


def sft(tok, rows):
  ds = datasets.Dataset.from_list(rows)
  columns = list(rows[0])
  data_processing_utils.validate_and_configure_sft_columns(columns, tok, None)
  ds, columns = instruction_data_processing.convert_to_conversational_format(dataset=ds, data_columns=columns, formatting_func_path=None, formatting_func_kwargs={})
  assert input_pipeline_utils.is_conversational(ds.features, columns), "Dataset is not in conversational format."


def dpo(tok, rows):
  ds = datasets.Dataset.from_list(rows)
  columns = list(rows[0])
  ds = ds.map(input_pipeline_utils.tokenization, fn_kwargs={"hf_tokenizer": tok, "truncation": False, "max_length": 64, "column_names": columns})
  for c in columns:
    ids = ds[0][c]
    assert isinstance(ids, list) and all(isinstance(i, int) for i in ids), f"{c} is not one token sequence: {str(ids)[:60]}"


CASES = {
    ("sft", "messages: messages"): (sft, [{"messages": MSG("user", "hi") + MSG("assistant", "hello")}]),
    ("sft", "prompt, completion: text"): (sft, [{"prompt": "2+2?", "completion": "4"}]),
    ("sft", "prompt, completion: messages"): (sft, [{"prompt": MSG("user", "2+2?"), "completion": MSG("assistant", "4")}]),
    ("sft", "question, answer: text"): (sft, [{"question": "2+2?", "answer": "4"}]),
    ("sft", "messages: text"): (sft, [{"messages": "hi there"}]),
    ("dpo", "prompt, chosen, rejected: text"): (dpo, [{"prompt": "2+2?", "chosen": "4", "rejected": "5"}]),
    ("dpo", "chosen, rejected: messages"): (dpo, [{"chosen": MSG("user", "2+2?") + MSG("assistant", "4"), "rejected": MSG("user", "2+2?") + MSG("assistant", "5")}]),
}


def main():
  tok = AutoTokenizer.from_pretrained(sys.argv[1])
  for (method, layout), (fn, rows) in CASES.items():
    try:
      fn(tok, rows)
      result = "accepted"
    except Exception as e:  # MaxText's own refusal, reported
      result = f"refused: {type(e).__name__}: {str(e)[:160]}"
    print(json.dumps({"method": method, "layout": layout, "result": result}))


if __name__ == "__main__":
  main()
