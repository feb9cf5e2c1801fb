"""Writers of RL reward data (SFT, DPO, KTO, reward, AgentWorldBench rows)."""
