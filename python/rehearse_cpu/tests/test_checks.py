"""The CPU rehearsal's own checks fail, naming step and cause, on the defects they exist to catch. Run in the locked
MaxText environment: .rehearse/current/maxtext/bin/python -m unittest discover -s python -t python."""
import os
import shutil
import tempfile
import unittest

from rehearse_cpu import checks, tiny


class Rows(checks.Report):
  def __init__(self):
    super().__init__()


class ExportMovedTest(unittest.TestCase):
  @classmethod
  def setUpClass(cls):
    cls.tmp = tempfile.mkdtemp()
    cls.base = os.path.join(cls.tmp, "base")
    tiny.make_model("llama3.1-8b", cls.base, 2)

  @classmethod
  def tearDownClass(cls):
    shutil.rmtree(cls.tmp)

  def test_a_lora_export_equal_to_its_base_fails_naming_the_unmerged_delta(self):
    export = os.path.join(self.tmp, "lora-export")
    shutil.copytree(self.base, export)
    r = Rows()
    checks._check_moved(r, "lora", export, self.base)
    step, check, ok, detail = r.rows[-1]
    self.assertEqual((step, ok), ("to-hf", False))
    self.assertIn("the trained export differs from the base model (lora)", check)
    self.assertIn("the LoRA delta was not merged: the export equals its base", detail)

  def test_an_sft_export_that_moved_passes_and_counts_the_tensors(self):
    from safetensors.numpy import load_file, save_file
    export = os.path.join(self.tmp, "sft-export")
    shutil.copytree(self.base, export)
    f = os.path.join(export, "model.safetensors")
    t = load_file(f)
    k = sorted(t)[0]
    t[k] = t[k] + 0.5
    save_file(t, f, metadata={"format": "pt"})
    r = Rows()
    checks._check_moved(r, "sft", export, self.base)
    step, check, ok, detail = r.rows[-1]
    self.assertTrue(ok, detail)
    self.assertIn(f"1/{len(t)} tensors moved", detail)

  def test_a_step_that_moved_nothing_fails_naming_the_method(self):
    export = os.path.join(self.tmp, "dpo-export")
    shutil.copytree(self.base, export)
    r = Rows()
    checks._check_moved(r, "dpo", export, self.base)
    self.assertEqual(r.rows[-1][3], "the dpo step did not move any weight")


class CauseTest(unittest.TestCase):
  def test_the_cause_is_the_last_line_saying_what_went_wrong(self):
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
      f.write("loading\nTraceback (most recent call last):\n  File \"x.py\", line 1\nValueError: BuilderConfig 'main' not found. Available: ['default']\ndone\n")
    self.assertEqual(checks.cause_of(f.name), "ValueError: BuilderConfig 'main' not found. Available: ['default']")
    os.unlink(f.name)


if __name__ == "__main__":
  unittest.main()
