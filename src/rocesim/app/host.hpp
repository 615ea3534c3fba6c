// A server: its NICs (each with its own port and link) and the applications running on it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rocesim/app/application.hpp"
#include "rocesim/core/simulator.hpp"
#include "rocesim/core/slot_vector.hpp"
#include "rocesim/nic/nic.hpp"
#include "rocesim/server/cpu.hpp"
#include "rocesim/server/interconnect.hpp"

namespace rocesim {

// Contract: a host reaches the network only through its own NICs; it owns its applications and routes each
// NIC completion to the application that owns the queue pair.
class Host final : public EventHandler, public CompletionSink, public TransferSink {
 public:
  Host(Simulator& sim, std::string name) : EventHandler(sim.new_source()), sim_(sim), name_(std::move(name)) {}
  const std::string& name() const { return name_; }
  Time now() const { return sim_.now(); }

  // NICs in order: NIC k is what an application names as index k (mlx5_k).
  void add_nic(Nic* nic, uint32_t endpoint) {
    nics_.push_back(nic);
    endpoints_.push_back(endpoint);
    nic->set_sink(this);
  }
  size_t num_nics() const { return nics_.size(); }
  uint32_t endpoint(size_t nic) const { return endpoints_[nic]; }
  Nic& nic(size_t k) { return *nics_[k]; }
  const Nic& nic(size_t k) const { return *nics_[k]; }

  uint32_t add_app(std::unique_ptr<Application> app) {
    apps_.push_back(std::move(app));
    return static_cast<uint32_t>(apps_.size() - 1);
  }
  Application& app(uint32_t id) { return *apps_[id]; }

  // One end of a connected queue pair: the NIC and its half queue pairs (-1 where that direction is unused).
  struct QpEnd {
    uint32_t nic = 0;   // index among this host's NICs
    int64_t send = -1;  // sends this end's WRITE, WRITE with immediate and SEND data
    int64_t recv = -1;  // takes the peer's WRITE and SEND data
    int64_t read = -1;  // takes the responses of this end's READs
    uint32_t app = 0;   // the owner
  };
  uint32_t add_qp(const QpEnd& q) {
    qps_.push_back(q);
    return static_cast<uint32_t>(qps_.size() - 1);
  }
  const QpEnd& qp(uint32_t handle) const { return qps_[handle]; }
  size_t num_qps() const { return qps_.size(); }

  // Posts a work request on a queue pair at `at` (now if earlier). READ goes to the read half, everything else
  // to the send half; a direction the connection was not set up for is a std::logic_error (a program bug).
  // `id`: the flow id outputs give the message, if it is to have a fixed one (Nic::kUnnumbered otherwise).
  void post(uint32_t qp, const WorkRequest& wr, Time at, uint32_t id = Nic::kUnnumbered);
  void post(uint32_t qp, const WorkRequest& wr) { post(qp, wr, sim_.now()); }
  // Posts `count` receive buffers for SENDs on the queue pair, at `at`.
  void post_recv(uint32_t qp, int64_t count, Time at);

  // Calls app.on_timer(cookie) after `delay` (the application's compute time, a think time).
  void after(Time delay, uint32_t app, uint64_t cookie);
  // An application that will post again later holds the run until it releases it (see Simulator::hold).
  void hold() { sim_.hold(); }
  void release() { sim_.release(); }

  // The server's GPUs, PCIe and NVLink (none unless the scenario has a `server` model).
  void attach_interconnect(const ServerModel& model) {
    interconnect_ = std::make_unique<Interconnect>(sim_, model, *this);
  }
  bool has_gpus() const { return interconnect_ != nullptr && interconnect_->model().gpus() > 0; }
  const ServerModel& model() const { return interconnect_->model(); }
  const Interconnect& interconnect() const { return *interconnect_; }
  Interconnect& interconnect() { return *interconnect_; }
  // Moves `bytes` from one place in the server to another (plus through `extra` resources, e.g. a GPU's
  // reduction); app.on_transfer(cookie) is called `latency` after the last byte arrives.
  void transfer(Place from, Place to, Bytes bytes, Time latency, uint32_t app, uint64_t cookie,
                std::optional<uint16_t> extra = std::nullopt);
  // The cores the kernel's TCP runs on, made with the given size on first use.
  HostCpu& cpu(int64_t cores, double ghz) {
    if (!cpu_) {
      cpu_ = std::make_unique<HostCpu>(cores, ghz);
    }
    return *cpu_;
  }
  // CPU time the server's applications spent (copies they drove); for outputs.
  void add_cpu(Time t) { cpu_busy_ += t; }
  Time cpu_busy() const { return cpu_busy_; }

  void on_completion(uint32_t owner, const Completion& c) override { apps_[owner]->on_completion(*this, c); }
  void transfer_done(uint32_t app, uint64_t cookie) override { apps_[app]->on_transfer(*this, cookie); }
  void handle_event(uint32_t kind, uint64_t arg) override;
  void prefetch(uint32_t, uint64_t arg) const override {
    const auto& [app, cookie] = timers_[arg];
    apps_[app]->prefetch(cookie);
  }
  void prefetch_transfer(uint32_t app, uint64_t cookie) const override { apps_[app]->prefetch(cookie); }

 private:
  Simulator& sim_;
  std::string name_;
  std::vector<Nic*> nics_;
  std::vector<uint32_t> endpoints_;
  std::vector<std::unique_ptr<Application>> apps_;
  std::vector<QpEnd> qps_;
  SlotVector<std::pair<uint32_t, uint64_t>> timers_;  // (app, cookie) of each pending timer
  std::unique_ptr<Interconnect> interconnect_;
  std::unique_ptr<HostCpu> cpu_;
  Time cpu_busy_;
};

}  // namespace rocesim
