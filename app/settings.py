"""The one typed settings object, read from `AWP_*` environment variables (and `.env`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from backend.engines.base import EngineConfig, VllmOptions
from backend.envs.live.base import LiveConfig
from backend.grounding.grounder import DEFAULT_METHOD
from backend.trust import ROLES, TrustRule, parse_roles
from backend.types import HistoryMode, SamplingParams


class Settings(BaseSettings):
    """Every knob of the playground; the manual's settings page is generated from the fields."""

    model_config = SettingsConfigDict(env_prefix="AWP_", env_file=".env", extra="ignore")

    data_dir: Path = Field(
        default=Path.home() / ".agentworld",
        description="Directory for the prepared embedded model, the SQLite database and exports.",
    )
    database_url: str = Field(
        default="",
        description="SQLAlchemy URL; empty means a SQLite file `awp.db` in the data directory.",
    )
    engine: str = Field(default="transformers", description="Default engine name.")
    model: str = Field(
        default="",
        description="Model id for the engine; empty means the engine's default (embedded SmolLM2).",
    )
    base_url: str = Field(
        default="http://127.0.0.1:8000/v1",
        description="OpenAI-compatible server URL for the `openai` engine (vLLM, SGLang, ...); "
        "several, comma-separated, are replicas of one model (least-loaded first).",
    )
    openai_extra_body: dict[str, Any] = Field(
        default_factory=dict,
        description="JSON object of fields the `openai` engine adds to every request, e.g. "
        '`{"chat_template_kwargs": {"enable_thinking": false}}` for vLLM.',
    )
    api_key: SecretStr = Field(
        default=SecretStr("EMPTY"), description="Bearer token for the OpenAI-compatible server."
    )
    temperature: float = Field(default=0.6, description="Sampling temperature.")
    top_p: float = Field(default=0.95, description="Nucleus sampling threshold.")
    top_k: int = Field(default=20, description="Top-k sampling cut-off (0 disables it).")
    max_new_tokens: int = Field(
        default=256,
        description="Completion token budget; the real model thinks for thousands of tokens.",
    )
    seed: int | None = Field(default=None, description="Sampling seed for reproducible runs.")
    history_mode: HistoryMode = Field(
        default=HistoryMode.TEACHER_FORCED,
        description="History shown to the model: teacher_forced, closed_loop or blind.",
    )
    request_timeout_s: float = Field(default=600.0, description="Per-request engine timeout.")
    request_deadline_s: float = Field(
        default=900.0,
        gt=0,
        description="Longest time one engine request may take in all, retries and streaming "
        "included: a server that trickles its answer cannot hold a worker longer.",
    )
    max_retries: int = Field(
        default=3, description="Retries on 429/5xx/connection errors, with backoff."
    )
    concurrency: int = Field(default=8, description="Requests in flight at once in a batch.")
    steps_per_person: int = Field(
        default=1,
        ge=1,
        description="Engine steps one person of the web app may have running or waiting at once "
        "(a further one is refused until one ends).",
    )
    anonymous_max_new_tokens: int = Field(
        default=2048,
        ge=1,
        description="Completion token budget of a web app step by someone who is not signed in "
        "(what they ask for beyond it is cut to it).",
    )
    device: str = Field(default="cpu", description="Torch device for in-process engines.")
    cpu_threads: int = Field(
        default=1,
        ge=0,
        description="CPU threads of in-process torch models (the whole process); 0 lets torch use "
        "every core. One avoids threads that wait on each other when other work shares the cores.",
    )
    vllm_memory_utilization: float = Field(
        default=0.9,
        gt=0,
        le=1,
        description="Share of GPU memory the in-process vllm engine reserves (of RAM on vLLM's "
        "CPU build).",
    )
    vllm_max_model_len: int | None = Field(
        default=None,
        ge=16,
        description="Longest prompt plus output of the in-process vllm engine; empty for the "
        "model's own limit.",
    )
    vllm_dtype: str = Field(
        default="auto", description="Precision of the in-process vllm engine (auto, bfloat16, ...)."
    )
    vllm_enforce_eager: bool = Field(
        default=False,
        description="Skip CUDA graphs and compilation in the in-process vllm engine (quicker "
        "start, slower steps).",
    )
    vllm_cpu_kv_cache_gb: float | None = Field(
        default=None,
        gt=0,
        description="KV cache of vLLM's CPU build in GiB (VLLM_CPU_KVCACHE_SPACE); empty leaves "
        "that variable as it is.",
    )
    prompts_dir: Path | None = Field(
        default=None,
        description="Directory of `<domain>.md` system prompts, or the official `prompts/` "
        "folder (`<domain>/system_prompt.txt`), that override the built-ins.",
    )
    host: str = Field(default="127.0.0.1", description="Address the web app listens on.")
    port: int = Field(default=7860, description="Port the web app listens on.")
    users: SecretStr = Field(
        default=SecretStr(""),
        description="Password logins as `name:password` pairs separated by commas; empty means "
        "no login page.",
    )
    admins: str = Field(
        default="",
        description="Comma-separated user names with the admin role (export, everyone's progress).",
    )
    reviewers: str = Field(
        default="",
        description="Comma-separated user names with the reviewer role, whose corrections are "
        "trusted as reality (`AWP_TRUST_ROLES`).",
    )
    trust_roles: str = Field(
        default="admin,reviewer",
        description="Comma-separated roles whose single correction is trusted: it grounds the "
        "model and answers from the record for everybody. Other corrections need "
        "`AWP_TRUST_AGREEING` annotators to agree.",
    )
    trust_agreeing: int = Field(
        default=2,
        ge=2,
        le=10,
        description="Distinct annotators whose same correction of one prediction makes it "
        "trusted; one annotator alone never is.",
    )
    anonymous_role: Literal["annotator", "admin"] = Field(
        default="admin",
        description="Role of people who are not logged in: admin suits a personal machine, "
        "annotator a public Space.",
    )
    live_enabled: bool = Field(
        default=True,
        description="Offer live environments (terminal, swe, mcp, web) where this machine can run "
        "them.",
    )
    live_max: int = Field(
        default=8, ge=1, description="Live environments running at once, all users together."
    )
    live_per_person: int = Field(
        default=4,
        ge=1,
        description="Live environments one person may hold at once (Playground and Rollouts "
        "together).",
    )
    live_idle_timeout_s: float = Field(
        default=900.0, gt=0, description="A live environment unused this long is closed."
    )
    live_memory_mb: int = Field(
        default=1024,
        ge=64,
        description="Memory of a live sandbox: all its processes together where cgroups hold, "
        "else the address space of each.",
    )
    live_disk_mb: int = Field(
        default=256, ge=16, description="Disk (tmpfs) a live sandbox may fill, all files together."
    )
    live_cgroups: Literal["auto", "off"] = Field(
        default="auto",
        description="Whole-sandbox limits (memory, CPU, tasks, frozen between actions) with one "
        "cgroup per live sandbox: auto uses them where the machine allows (as root), off keeps "
        "only the per-process limits.",
    )
    live_action_timeout_s: float = Field(
        default=60.0, gt=0, description="Longest a live action may run before it is stopped."
    )
    annotation_overlap: int = Field(
        default=1,
        ge=1,
        le=10,
        description="Different annotators (and voters) per item before it leaves the queues: 1, "
        "or 2-3 for an agreement study.",
    )
    arena_contenders: str = Field(
        default="transformers@0.6,transformers@1.2,persistence",
        description="Arena contenders, comma-separated `engine[:model][@temperature]`; each battle "
        "draws two.",
    )
    arena_bootstrap_rounds: int = Field(
        default=100, ge=0, le=10_000, description="Bootstrap resamples behind each rating interval."
    )
    judge_engine: str = Field(
        default="",
        description="Engine of the 'Judge this' buttons; empty means the default engine.",
    )
    judge_model: str = Field(
        default="",
        description="Model id of the judge wherever none is given (the 'Judge this' buttons, "
        "the Benchmark page, `--judge` without `--judge-model`); empty means the model its "
        "engine is configured with: AWP_MODEL on the default engine, else that engine's default.",
    )
    judge_max_new_tokens: int = Field(
        default=2048,
        ge=1,
        description="Completion token budget of the judge wherever none is given "
        "(`--judge-max-new-tokens`).",
    )
    grounding: bool = Field(
        default=True,
        description="Show the model the most similar real transitions (recordings, live runs, "
        "corrections) as demonstrations, in the Playground, rollouts and integrations. Benchmarks "
        "(the page and `awp bench`) and training evaluation stay ungrounded unless asked.",
    )
    record_answers: bool = Field(
        default=True,
        description="Answer a step that exactly matches a real transition (same domain, "
        "normalised state before and canonical action, every match agreeing) from that "
        "transition, without the model. Benchmarks (the page and `awp bench`) and training "
        "evaluation keep it off unless asked.",
    )
    hybrid_min_confidence: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description="Selective simulation in hybrid backing: a model prediction whose confidence "
        "is below this is replaced by the live environment's answer (answered_by=live); 0: off.",
    )
    grounding_k: int = Field(
        default=4, ge=1, le=32, description="The most real transitions shown per step."
    )
    grounding_tokens: int = Field(
        default=2000,
        ge=1,
        description="Token budget of the demonstrations (estimated as characters / 4).",
    )
    grounding_method: str = Field(
        default=DEFAULT_METHOD,
        description="Similarity that ranks real transitions: tfidf_char_action (measured best), "
        "bm25_action, tfidf_char or bm25.",
    )
    env_token: SecretStr = Field(
        default=SecretStr(""),
        description="Bearer token `awp env serve` asks every client for; required when it "
        "listens beyond loopback.",
    )
    env_idle_timeout_s: float = Field(
        default=300.0,
        gt=0,
        description="An `awp env serve` session (HTTP or WebSocket) idle this long is closed.",
    )
    identity_secret: SecretStr = Field(
        default=SecretStr(""),
        description="Key that signs anonymous identities (the `awp_id` cookie); empty: a random "
        "one kept in `<data dir>/identity.key`.",
    )
    trust_proxy: bool | None = Field(
        default=None,
        description="Take a visitor's address from the last `X-Forwarded-For` entry (set only "
        "behind a reverse proxy); default: on when running in a Space.",
    )
    reports_signed_in_only: bool = Field(
        default=False,
        description="Count only signed-in people's votes in the arena and Which-one-is-real "
        "reports.",
    )
    hf_login: bool | None = Field(
        default=None,
        description="Offer 'Sign in with Hugging Face'; default: on when running in a Space.",
    )

    def engine_config(self, name: str | None = None, model: str | None = None) -> EngineConfig:
        """The engine configuration for `name` (default engine when None)."""
        return EngineConfig(
            name=name or self.engine,
            model=self.model if model is None else model,
            base_url=self.base_url,
            api_key=self.api_key.get_secret_value(),
            data_dir=self.data_dir,
            timeout_s=self.request_timeout_s,
            deadline_s=self.request_deadline_s,
            max_retries=self.max_retries,
            concurrency=self.concurrency,
            device=self.device,
            cpu_threads=self.cpu_threads,
            extra_body=dict(self.openai_extra_body),
            vllm=VllmOptions(
                memory_utilization=self.vllm_memory_utilization,
                max_model_len=self.vllm_max_model_len,
                dtype=self.vllm_dtype,
                enforce_eager=self.vllm_enforce_eager,
                cpu_kv_cache_gb=self.vllm_cpu_kv_cache_gb,
            ),
        )

    def sampling(self) -> SamplingParams:
        """Default sampling parameters."""
        return SamplingParams(
            temperature=self.temperature,
            top_p=self.top_p,
            top_k=self.top_k,
            max_new_tokens=self.max_new_tokens,
            seed=self.seed,
        )

    def live_config(self) -> LiveConfig:
        """Limits and the work folder of live environments."""
        return LiveConfig(
            work_dir=self.data_dir / "live",
            memory_mb=self.live_memory_mb,
            disk_mb=self.live_disk_mb,
            action_timeout_s=self.live_action_timeout_s,
            cgroups=self.live_cgroups == "auto",
        )

    @field_validator("trust_roles")
    @classmethod
    def _known_roles(cls, value: str) -> str:
        """Refuse a typo at start: an unknown role would silently trust nobody."""
        unknown = sorted(parse_roles(value) - set(ROLES))
        if unknown:
            raise ValueError(
                f"AWP_TRUST_ROLES names unknown roles {', '.join(unknown)}; the roles are "
                f"{', '.join(ROLES)}"
            )
        return value

    def trust_rule(self) -> TrustRule:
        """When a correction answers as reality (`backend.trust`)."""
        return TrustRule(roles=parse_roles(self.trust_roles), agreeing=self.trust_agreeing)

    def resolved_database_url(self) -> str:
        """The database URL, defaulting to SQLite in the data directory."""
        return self.database_url or f"sqlite:///{self.data_dir / 'awp.db'}"
