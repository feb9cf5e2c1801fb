"""Fine-tuning world models on recordings and corrections (`awp train`), with TRL and peft.

`service.train` is the one entry point: examples from a source, a split by trajectory, the
held-out benchmark before and after, a trainer from the `methods` registry, and an output folder
the transformers engine loads as a model (with `train_results.json` and a model card).
"""
