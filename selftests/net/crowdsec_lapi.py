# SPDX-License-Identifier: GPL-2.0
"""crowdsec_lapi.py DIR: writes DIR/config.yaml, Debian's crowdsec
configuration (/etc/crowdsec/config.yaml) for a local API of its own: run in
the foreground, its log, database and machine credentials in DIR, no
Central API, no Prometheus endpoint. For selftests/net/test_clients.sh and
the clients benchmark (tools/bench/clients_bench.sh), which run it with
crowdsec -c DIR/config.yaml -no-cs."""
import re
import sys

d = sys.argv[1]
s = open('/etc/crowdsec/config.yaml').read()
s = s.replace('daemonize: true', 'daemonize: false')
s = s.replace('log_dir: /var/log/', 'log_dir: %s/' % d)
s = s.replace('/var/lib/crowdsec/data/crowdsec.db', d + '/crowdsec.db')
s = s.replace('/etc/crowdsec/local_api_credentials.yaml', d + '/lapi.yaml')
s = re.sub(r'    online_client:.*\n      credentials_path: .*\n', '', s)
s = re.sub(r'prometheus:\n  enabled: true', 'prometheus:\n  enabled: false', s)
open(d + '/config.yaml', 'w').write(s)
