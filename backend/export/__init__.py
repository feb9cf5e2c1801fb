"""Writers of RL reward data (SFT, DPO, KTO, reward, AgentWorldBench rows).

Pure over iterators of `ExportRecord`s (storage supplies them): `service.export` builds the rows
of a registered format (`builders.FORMATS`) and streams them to JSONL, Parquet or a datasets
folder; `rewards.world_model_reward` scores completions for TRL's GRPO trainer.
"""
