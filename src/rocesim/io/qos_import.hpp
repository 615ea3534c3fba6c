// Real gear's QoS configuration as scenario sections: a SONiC switch's config_db.json becomes `switch:`, a NIC's
// `mlnx_qos` report and DCQCN parameters (sysfs or mlxconfig name-value lines) become `nic:` (and the lossless
// priorities). What rocesim cannot honour is listed as warnings, never dropped silently.
#pragma once

#include <string>
#include <vector>

namespace rocesim {

struct QosImport {
  std::string yaml;                   // the scenario fragment, ready to paste or to pass as a scenario's section
  std::vector<std::string> warnings;  // "file: key: what is not honoured"
};

// `text`: config_db.json (or `show runningconfiguration all`); `port`: the port whose QoS to take (empty: the
// first port PORT_QOS_MAP enables PFC on, else the first it names). Throws InputError naming `file`, the line
// (JSON syntax errors) or the JSON path, and the key.
QosImport import_sonic_config_db(const std::string& text, const std::string& file, const std::string& port);

// `text`: the output of `mlnx_qos -i IF`, and/or DCQCN parameters as `NAME VALUE`, `NAME=VALUE` or
// `.../params/NAME:VALUE` lines (`grep . /sys/class/net/IF/ecn/roce_rp/params/*`). Throws InputError naming
// `file`, the line and the key.
QosImport import_mlnx_qos(const std::string& text, const std::string& file);

}  // namespace rocesim
