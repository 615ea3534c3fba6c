// DCQCN (Zhu et al., SIGCOMM 2015), as NVIDIA ConnectX NICs run it. Equations: the DCQCN summary in Zhu et al.,
// "ECN or Delay: Lessons Learnt from Analysis of DCQCN and TIMELY", CoNEXT 2016 (jitupadhye-zz/rdma
// conext2016/dcqcn-protocol.tex), and the HPCC simulator's Mellanox variant
// (alibaba-edu/High-Precision-Congestion-Control simulation/src/point-to-point/model/rdma-hw.cc). Parameters:
// ConnectX firmware defaults (NVIDIA DOCA "DCQCN CC Parameters"; Mellanox community "DCQCN Parameters"), preset
// `dcqcn`; paper defaults (the CoNEXT 2016 fluid model, jitupadhye-zz/rdma fluidmodel/dcqcn/dcqcn2.m), preset
// `dcqcn-paper`.
//
// Reaction point, per QP:
//   on a CNP (acted on at most once per rate_reduce_monitor_period; with cut_on_period_end, at the end of the
//   period it falls in, periods counted from the first CNP):
//     R_T = R_C (always if clamp_target_rate, else only once an increase has happened since the last cut)
//     R_C = max(min_rate, R_C * max(1 - alpha/2, min_dec_factor))
//   alpha: every alpha_update_period, alpha = (1-g) alpha + g if a CNP arrived in the period, else (1-g) alpha;
//     the first CNP sets alpha = initial_alpha. (Computed lazily: k quiet periods multiply by (1-g)^k.)
//   increase events: every rate_increase_period (timer T) and every byte_counter bytes sent (counter B); with
//     s = the larger of the two stage counts since the last cut, counted before this event (so F fast-recovery
//     steps come first, as in the HPCC simulator's Mellanox model):
//     s <  F: fast recovery     R_C = (R_T + R_C)/2
//     s == F: additive increase R_T += rate_ai;  R_C = (R_T + R_C)/2
//     s >  F: hyper increase    R_T += rate_hai; R_C = (R_T + R_C)/2      (R_T capped at line rate)
// The notification point (the receiving NIC) sends a CNP for a CE-marked packet at most once per
// min_time_between_cnps per QP (nic/notification_point.hpp).
#include <cmath>
#include <memory>

#include "rocesim/cc/cc.hpp"

namespace rocesim {
namespace {

struct DcqcnParams {
  Time min_time_between_cnps;
  double g = 0;
  Time alpha_update_period;
  double initial_alpha = 0;
  Time rate_reduce_monitor_period;
  Time rate_increase_period;
  Bytes byte_counter;
  int64_t fast_recovery_steps = 0;
  Rate rate_ai;
  Rate rate_hai;
  Rate min_rate;
  double min_dec_factor = 0;
  bool clamp_target_rate = false;
  bool cut_on_period_end = false;
};

const Schema<DcqcnParams>& dcqcn_schema(bool paper) {
  auto build = [](bool p) {
    Schema<DcqcnParams> sc(p ? "cc dcqcn-paper" : "cc dcqcn",
                           p ? "DCQCN with the SIGCOMM 2015 defaults" : "DCQCN with NVIDIA ConnectX firmware defaults");
    auto d = [p](const char* nvidia, const char* paper) { return std::string(p ? paper : nvidia); };
    sc.reserved("type", p ? "dcqcn-paper" : "dcqcn")
        .add(&DcqcnParams::min_time_between_cnps, "min_time_between_cnps", d("4us", "50us"),
             "notification point: at most one CNP per QP per this interval (NVIDIA min_time_between_cnps; paper tau)")
        .add(&DcqcnParams::g, "g", d("0.0048828125", "0.00390625"),
             "alpha gain (NVIDIA dce_tcp_g 1019 = 5/1024; paper 1/256)", in_range(0.0, 1.0))
        .add(&DcqcnParams::alpha_update_period, "alpha_update_period", d("1us", "55us"),
             "alpha update period (NVIDIA dce_tcp_rtt; paper tau')", at_least(Time::ps(1)))
        .add(&DcqcnParams::initial_alpha, "initial_alpha", d("0.9990234375", "1"),
             "alpha set by the first CNP (NVIDIA initial_alpha_value 1023/1024)", in_range(0.0, 1.0))
        .add(&DcqcnParams::rate_reduce_monitor_period, "rate_reduce_monitor_period", d("4us", "0us"),
             "at most one rate cut per this period (NVIDIA rate_reduce_monitor_period; paper: every CNP)")
        .add(&DcqcnParams::rate_increase_period, "rate_increase_period", d("300us", "55us"),
             "rate increase timer T (NVIDIA rpg_time_reset)", at_least(Time::ps(1)))
        .add(&DcqcnParams::byte_counter, "byte_counter", d("32767B", "10MB"),
             "rate increase byte counter B, 0B disables it (NVIDIA rpg_byte_reset)")
        .add(&DcqcnParams::fast_recovery_steps, "fast_recovery_steps", d("1", "5"),
             "fast recovery stages F (NVIDIA rpg_threshold)", in_range<int64_t>(0, 1000))
        .add(&DcqcnParams::rate_ai, "rate_ai", d("5Mbps", "40Mbps"), "additive increase step (NVIDIA rpg_ai_rate)")
        .add(&DcqcnParams::rate_hai, "rate_hai", d("50Mbps", "200Mbps"),
             "hyper increase step (NVIDIA rpg_hai_rate; paper: ns3-rdma config)")
        .add(&DcqcnParams::min_rate, "min_rate", d("1Mbps", "1Mbps"),
             "lowest rate a cut can reach (NVIDIA rpg_min_rate)")
        .add(&DcqcnParams::min_dec_factor, "min_dec_factor", d("0.5", "0.5"),
             "a single cut keeps at least this fraction of the rate (NVIDIA rpg_min_dec_fac 50 %)", in_range(0.0, 1.0))
        .add(&DcqcnParams::clamp_target_rate, "clamp_target_rate", d("false", "true"),
             "set R_T = R_C on every cut (NVIDIA clamp_tgt_rate)")
        .add(&DcqcnParams::cut_on_period_end, "cut_on_period_end", "false",
             "cut only at the ends of rate_reduce_monitor_period windows counted from the first CNP, when a CNP "
             "arrived in the window (the HPCC simulator's CheckRateDecreaseMlx); false: a CNP after a quiet "
             "window cuts at once");
    return sc;
  };
  static const Schema<DcqcnParams> nvidia = build(false);
  static const Schema<DcqcnParams> paper_schema = build(true);
  return paper ? paper_schema : nvidia;
}

// Aligned so that what every packet sent touches (the base's rate and window, then p_, rc_, bytes_ and line_)
// is the object's first cache line; the parameters are the algorithm's, shared by every QP, not a copy each.
class alignas(64) Dcqcn final : public CongestionControl {
 public:
  Dcqcn(std::shared_ptr<const DcqcnParams> p, Rate line, CcTimers& timers)
      : p_(p.get()), line_(line), timers_(timers), params_(std::move(p)) {
    rate = line;
    rt_ = static_cast<double>(line.bps());
    rc_ = rt_;
  }

  void on_cnp(Time now) override {
    advance_alpha(now);
    cnp_in_period_ = true;
    if (!seen_cnp_) {
      seen_cnp_ = true;
      first_cnp_ = now;
      alpha_ = p_->initial_alpha;
      alpha_epoch_ = now;
      cnp_in_period_ = false;  // the first CNP sets alpha; it does not also count as a period with a CNP
    }
    if (cut_pending_) {
      return;  // the deferred cut will act on this CNP too
    }
    if (p_->cut_on_period_end && p_->rate_reduce_monitor_period > Time()) {
      // The windows are aligned to the first CNP: the cut waits for the end of the window this CNP falls in.
      const int64_t period = p_->rate_reduce_monitor_period.ps();
      const int64_t since = (now - first_cnp_).ps();
      cut_pending_ = true;
      timers_.arm(this, first_cnp_ + Time::ps((since / period + 1) * period), kTimerCut);
      return;
    }
    if (now >= next_cut_) {
      cut(now);
    } else if (!cut_pending_) {
      cut_pending_ = true;
      timers_.arm(this, next_cut_, kTimerCut);
    }
  }

  void on_sent(Time now, int bytes) override {
    if (p_->byte_counter.count() == 0 || rc_ >= line_f()) {
      return;
    }
    bytes_ += bytes;
    if (bytes_ >= p_->byte_counter.count()) {
      bytes_ = 0;
      increase();
      ++byte_stage_;
    }
  }

  void on_timer(Time now, uint32_t id) override {
    if (id == kTimerCut) {
      cut_pending_ = false;
      cut(now);
    } else if (generation_of(id) == increase_gen_) {
      increase();
      ++time_stage_;
      if (rc_ < line_f()) {
        timers_.arm(this, now + p_->rate_increase_period, increase_timer(increase_gen_));
      }
    }
  }

  double alpha() const { return alpha_; }

 private:
  enum : uint32_t { kTimerCut = 1, kTimerIncrease = 2 };
  // A rate-increase timer's id carries the generation it was armed in: a cut starts a new one, and a timer of an
  // older generation is stale.
  static constexpr int kGenShift = 4;
  static uint32_t increase_timer(uint32_t gen) { return gen << kGenShift | kTimerIncrease; }
  static uint32_t generation_of(uint32_t id) { return id >> kGenShift; }
  double line_f() const { return static_cast<double>(line_.bps()); }

  // Brings alpha up to `now`: the period in progress at the last update gets the CNP term if one arrived in it;
  // every later whole period decays alpha by (1-g).
  void advance_alpha(Time now) {
    if (!seen_cnp_) {
      return;
    }
    const int64_t k = (now - alpha_epoch_).ps() / p_->alpha_update_period.ps();
    if (k <= 0) {
      return;
    }
    alpha_ = (1 - p_->g) * alpha_ + (cnp_in_period_ ? p_->g : 0.0);
    if (k > 1) {
      alpha_ *= std::pow(1 - p_->g, static_cast<double>(k - 1));
    }
    alpha_epoch_ = alpha_epoch_ + p_->alpha_update_period * k;
    cnp_in_period_ = false;
  }

  void cut(Time now) {
    advance_alpha(now);
    if (p_->clamp_target_rate || time_stage_ > 0 || byte_stage_ > 0) {
      rt_ = rc_;
    }
    const double factor = std::max(1 - alpha_ / 2, p_->min_dec_factor);
    rc_ = std::max(static_cast<double>(p_->min_rate.bps()), rc_ * factor);
    publish();
    next_cut_ = now + p_->rate_reduce_monitor_period;
    time_stage_ = byte_stage_ = 0;
    bytes_ = 0;
    ++increase_gen_;
    timers_.arm(this, now + p_->rate_increase_period, increase_timer(increase_gen_));
  }

  void increase() {
    const int64_t s = std::max(time_stage_, byte_stage_);
    const int64_t f = p_->fast_recovery_steps;
    if (s == f) {
      rt_ += static_cast<double>(p_->rate_ai.bps());
    } else if (s > f) {
      rt_ += static_cast<double>(p_->rate_hai.bps());
    }
    rt_ = std::min(rt_, line_f());
    rc_ = (rt_ + rc_) / 2;
    publish();
  }

  void publish() { rate = Rate::bps(std::max<int64_t>(1, static_cast<int64_t>(rc_))); }

  const DcqcnParams* p_;  // *params_
  double rc_ = 0;
  int64_t bytes_ = 0;
  Rate line_;
  CcTimers& timers_;
  double rt_ = 0;
  double alpha_ = 1;
  bool seen_cnp_ = false;
  bool cnp_in_period_ = false;
  Time alpha_epoch_;
  Time first_cnp_;
  Time next_cut_;
  bool cut_pending_ = false;
  int64_t time_stage_ = 0, byte_stage_ = 0;
  uint32_t increase_gen_ = 0;
  std::shared_ptr<const DcqcnParams> params_;  // shared with the algorithm and its other controllers
};

class DcqcnAlgorithm final : public CcAlgorithm {
 public:
  DcqcnAlgorithm(std::string preset, DcqcnParams p)
      : preset_(std::move(preset)), p_(std::make_shared<const DcqcnParams>(std::move(p))) {}
  std::unique_ptr<CongestionControl> make(const CcFlowInfo& flow, CcTimers& timers) const override {
    return std::make_unique<Dcqcn>(p_, flow.line_rate, timers);
  }
  std::optional<Time> cnp_interval() const override { return p_->min_time_between_cnps; }
  nlohmann::json dump() const override {
    nlohmann::json j = dcqcn_schema(preset_ == "dcqcn-paper").dump(*p_);
    j["type"] = preset_;
    return j;
  }

 private:
  std::string preset_;
  std::shared_ptr<const DcqcnParams> p_;
};

}  // namespace

namespace {
CcEntry dcqcn_entry(const std::string& preset, const std::string& summary) {
  const bool paper = preset == "dcqcn-paper";
  return {
      preset, summary,
      [preset, paper](const YAML::Node& n, const ParseCtx& ctx,
                      const std::string& path) -> std::unique_ptr<CcAlgorithm> {
        return std::make_unique<DcqcnAlgorithm>(preset, dcqcn_schema(paper).parse(n, ctx, path));
      },
      [paper](std::vector<ParamDoc>& out, const std::string& prefix) { dcqcn_schema(paper).describe(prefix, out); }};
}
}  // namespace

static CcEntry cc_dcqcn() { return dcqcn_entry("dcqcn", "NVIDIA ConnectX defaults"); }
static CcEntry cc_dcqcn_paper() { return dcqcn_entry("dcqcn-paper", "SIGCOMM 2015 defaults"); }

namespace {
// Registered before main (core/registry.hpp).
const Registrar<CcFactory> cc_dcqcn_registered(cc_registry(), cc_dcqcn());
const Registrar<CcFactory> cc_dcqcn_paper_registered(cc_registry(), cc_dcqcn_paper());
}  // namespace

}  // namespace rocesim
