#!/usr/bin/env python3
"""Long memories through the memlane CLI: does the first right memory come first? Standard library only.

Usage: long_memories.py MEMLANE_BIN [--seed N] [--memories N] [--keep DIR] [--runs OUT.jsonl]
                        [--explain QID] [-- extra global args]
Example: long_memories.py target/release/memlane --seed 2 -- -c search.question_weight=1

Generates a vault of long, multi-section memories — design documents, session summaries and
user–assistant exchanges of several KB, with headings, code blocks and conversational filler —
and questions whose answer sits in one section of one memory: requests ("can you remind me how I
set up …", "what did we decide about …") and short factual questions ("which port does … listen
on?"). The same subjects come back in several memories under other aspects, and the same aspects
under other subjects, so a question is answered only where its subject and its aspect meet.
Everything is written here from templates (no external data); `--seed` draws another vault and
other questions (seed 1 is the development set, seeds 2 and 3 check that a change holds).

Memories are written as files (`.memories/<name>.md`, created over eight months), `memlane
reindex`, then one `memlane search QUESTION --limit 10 --json --no-touch` per question with "now"
pinned (MEMLANE_NOW) to the last memory. Prints Recall@10 and MRR (of the one right memory) for
memlane and for a plain BM25 (k1 0.9, b 0.4, whole memories, and the best section) computed here,
overall and by question style.
"""
import json, math, os, random, re, shutil, subprocess, sys, tempfile
from datetime import datetime, timedelta

# Subjects: a component with the vocabulary its sections are written in.
SUBJECTS = [
    dict(key='nginx', name='nginx reverse proxy', tool='nginx', alt='Caddy', file='/etc/nginx/conf.d/app.conf',
         setting='proxy_read_timeout', value='90s', port=8443, cmd='nginx -t && systemctl reload nginx',
         error='502 Bad Gateway', host='the edge box'),
    dict(key='postgres', name='Postgres database', tool='PostgreSQL', alt='MySQL', file='postgresql.conf',
         setting='shared_buffers', value='4GB', port=5432, cmd='pg_dump -Fc app > app.dump',
         error='too many connections', host='db-01'),
    dict(key='redis', name='Redis cache', tool='Redis', alt='Memcached', file='redis.conf',
         setting='maxmemory-policy', value='allkeys-lru', port=6379, cmd='redis-cli --latency',
         error='OOM command not allowed', host='cache-02'),
    dict(key='kafka', name='Kafka event stream', tool='Kafka', alt='RabbitMQ', file='server.properties',
         setting='retention.ms', value='604800000', port=9092, cmd='kafka-topics.sh --describe --topic orders',
         error='NotLeaderForPartitionException', host='the broker pool'),
    dict(key='terraform', name='Terraform infrastructure', tool='Terraform', alt='Pulumi', file='main.tf',
         setting='backend "s3"', value='bucket = "infra-state"', port=None, cmd='terraform plan -out=tfplan',
         error='Error acquiring the state lock', host='the CI runner'),
    dict(key='gha', name='GitHub Actions pipeline', tool='GitHub Actions', alt='GitLab CI', file='.github/workflows/ci.yml',
         setting='concurrency', value='ci-${{ github.ref }}', port=None, cmd='act -j test',
         error='Resource not accessible by integration', host='the hosted runners'),
    dict(key='k8s', name='Kubernetes cluster', tool='Kubernetes', alt='Nomad', file='deployment.yaml',
         setting='resources.limits.memory', value='512Mi', port=6443, cmd='kubectl rollout status deploy/api',
         error='CrashLoopBackOff', host='the staging cluster'),
    dict(key='celery', name='Celery task queue', tool='Celery', alt='RQ', file='celeryconfig.py',
         setting='worker_prefetch_multiplier', value='1', port=None, cmd='celery -A app worker -c 4',
         error='WorkerLostError', host='the worker nodes'),
    dict(key='elastic', name='Elasticsearch search index', tool='Elasticsearch', alt='OpenSearch', file='elasticsearch.yml',
         setting='index.refresh_interval', value='30s', port=9200, cmd='curl localhost:9200/_cat/indices',
         error='circuit_breaking_exception', host='search-03'),
    dict(key='grafana', name='Grafana dashboards', tool='Grafana', alt='Kibana', file='grafana.ini',
         setting='min_refresh_interval', value='10s', port=3000, cmd='grafana-cli plugins ls',
         error='Datasource proxy error', host='the monitoring VM'),
    dict(key='prometheus', name='Prometheus alerting', tool='Prometheus', alt='Datadog', file='prometheus.yml',
         setting='scrape_interval', value='15s', port=9090, cmd='promtool check rules alerts.yml',
         error='context deadline exceeded', host='the monitoring VM'),
    dict(key='vault', name='secrets management', tool='HashiCorp Vault', alt='AWS Secrets Manager', file='vault.hcl',
         setting='default_lease_ttl', value='768h', port=8200, cmd='vault kv get secret/app',
         error='permission denied', host='the secrets cluster'),
    dict(key='docker', name='Docker build', tool='Docker', alt='Podman', file='Dockerfile',
         setting='FROM', value='python:3.12-slim', port=None, cmd='docker buildx build --platform linux/amd64 .',
         error='no space left on device', host='the build machine'),
    dict(key='s3', name='S3 backups', tool='restic', alt='borg', file='backup.sh',
         setting='--keep-daily', value='7', port=None, cmd='restic -r s3:s3.amazonaws.com/backups snapshots',
         error='repository is already locked', host='the backup bucket'),
    dict(key='react', name='React frontend', tool='Vite', alt='webpack', file='vite.config.ts',
         setting='build.sourcemap', value='hidden', port=5173, cmd='npm run build',
         error='Hydration failed', host='the CDN'),
    dict(key='auth', name='login and authentication', tool='OAuth2 with PKCE', alt='session cookies', file='auth.py',
         setting='token_lifetime', value='15 minutes', port=None, cmd='pytest tests/test_auth.py',
         error='invalid_grant', host='the identity provider'),
    dict(key='cron', name='nightly batch jobs', tool='systemd timers', alt='cron', file='nightly.timer',
         setting='OnCalendar', value='*-*-* 02:30:00', port=None, cmd='systemctl list-timers',
         error='job exited with status 137', host='the batch host'),
    dict(key='sentry', name='error tracking', tool='Sentry', alt='Rollbar', file='sentry.properties',
         setting='traces_sample_rate', value='0.2', port=None, cmd='sentry-cli releases new v2.4.0',
         error='rate limited by the quota', host='the SaaS project'),
]

# Personal subjects, for the user–assistant exchanges.
PERSONAL = [
    dict(key='sourdough', name='sourdough bread', thing='starter', alt='instant yeast', amount='100 g of starter',
         when='every Saturday morning', where='the kitchen', problem='a dense crumb', fix='a longer bulk ferment'),
    dict(key='marathon', name='marathon training', thing='long run', alt='cycling', amount='32 km',
         when='on Sundays', where='the river path', problem='a sore knee', fix='strength work twice a week'),
    dict(key='garden', name='vegetable garden', thing='tomato bed', alt='raised planters', amount='two litres of water',
         when='early in the evening', where='the back yard', problem='blossom end rot', fix='calcium and even watering'),
    dict(key='japan', name='trip to Japan', thing='rail pass', alt='domestic flights', amount='a 14-day pass',
         when='in April', where='Kyoto', problem='the crowds at Fushimi Inari', fix='going at sunrise'),
    dict(key='guitar', name='guitar practice', thing='fingerpicking pattern', alt='a pick', amount='twenty minutes',
         when='before breakfast', where='the spare room', problem='buzzing on the B string', fix='a lower action at the bridge'),
    dict(key='budget', name='household budget', thing='spreadsheet', alt='a budgeting app', amount='15 percent of income',
         when='on the first of the month', where='the shared drive', problem='forgotten subscriptions', fix='a monthly review'),
    dict(key='espresso', name='espresso machine', thing='grinder', alt='a moka pot', amount='18 g of coffee',
         when='each morning', where='the counter', problem='a sour shot', fix='a finer grind'),
    dict(key='bike', name='bike commute', thing='rain jacket', alt='the bus', amount='11 km each way',
         when='from March to October', where='the canal route', problem='a slow puncture', fix='tubeless tyres'),
]

# Aspects of a technical subject: a section heading, its text, and the questions it answers.
# Each text is a list of paragraphs; {..} are the subject's fields.
TECH_ASPECTS = {
    'setup': dict(
        ask='User: How do I set up {tool} for my {name}? I have never done it before.',
        head=['Setting up {tool}', 'Initial {tool} setup', 'How {tool} was installed'],
        text=['We set up {tool} for the {name} on {host}. The package came from the official repository, and '
              'the configuration lives in `{file}`.',
              'Steps we followed:\n\n1. Install {tool} and enable the service.\n2. Copy the template to `{file}`.\n'
              '3. Set `{setting}` to `{value}`.\n4. Check it with `{cmd}`.',
              '```\n{cmd}\n```',
              'The first run failed because the service user could not read `{file}`; fixing the owner solved it.'],
        q_req=['Can you remind me how I set up {tool} for the {name}?', 'How did I set up the {name} again?',
               'Remind me of the steps I used to install {tool}.'],
        q_fact=['Where does the {tool} configuration live?', 'Which file holds the {tool} configuration?'],
    ),
    'decision': dict(
        ask="User: Should we use {tool} or {alt} for the {name}? I can't decide.",
        head=['Decision: {tool} or {alt}', 'Choosing {tool} over {alt}', 'Why {tool}'],
        text=['We compared {tool} with {alt} for the {name}. {alt} was simpler to start with, but {tool} '
              'fits how we already operate {host}.',
              'Decision: we go with {tool}. {alt} stays as the fallback if the licence or the cost changes.',
              '| option | for | against |\n|---|---|---|\n| {tool} | known, scriptable | more moving parts |\n'
              '| {alt} | simpler | new to the team |',
              'We agreed to revisit this at the next quarterly review.'],
        q_req=['What did we decide about {alt} versus {tool}?', 'What did we end up choosing for the {name}, and why?',
               'Can you remind me why we picked {tool} instead of {alt}?'],
        q_fact=['Which option did we reject in favour of {tool}?', 'Did we choose {alt} for the {name}?'],
    ),
    'tuning': dict(
        ask='User: My {name} gets slow under load. What can I change to make it faster?',
        head=['Tuning {setting}', '{tool} performance', 'Performance tuning'],
        text=['Under load the {name} slowed down. The profile pointed at `{setting}`, which was left at its default.',
              'We raised `{setting}` to `{value}` in `{file}` and measured again: the p99 latency fell by about a third.',
              '```\n# {file}\n{setting} = {value}\n```',
              'Keep an eye on memory use after this change; the previous value was chosen for a smaller host.'],
        q_req=['Can you remind me what we changed to make {tool} faster?', 'What did we tune on the {name} under load?',
               'Remind me which setting fixed the {tool} latency.'],
        q_fact=['What value did we give {setting}?', 'Which {tool} setting did we raise for performance?'],
    ),
    'incident': dict(
        ask='User: {tool} keeps returning {error} since the release. What went wrong?',
        head=['Incident: {error}', 'Outage on {host}', 'Troubleshooting {error}'],
        text=['On the night of the release {tool} started returning `{error}`. Alerts fired on {host} within minutes.',
              'Root cause: a change to `{file}` was deployed without a restart, so half of the processes ran the old '
              'configuration. Running `{cmd}` showed the mismatch.',
              'Fix: restart in a rolling fashion and add a check to the deploy script. Follow-up: an alert on the '
              'configuration hash.',
              '```\n{cmd}\n```'],
        q_req=['Can you remind me what caused the {error} errors?', 'What went wrong with the {name} during the release?',
               'How did we fix the {tool} outage?'],
        q_fact=['What was the root cause of the {error} incident?', 'Which command showed the {tool} mismatch?'],
    ),
    'network': dict(
        ask='User: How do I make sure only my app can reach {tool} on the network?',
        head=['Ports and network', 'Networking for {tool}', 'Firewall rules'],
        text=['{tool} listens on port {port} on {host}. Only the application subnet may reach it; the firewall '
              'drops everything else.',
              '```\nufw allow from 10.0.2.0/24 to any port {port}\n```',
              'TLS terminates in front of it, so the internal hop is plain text inside the private network.'],
        q_req=['Can you remind me how I opened the firewall for {tool}?', 'How did we restrict network access to the {name}?'],
        q_fact=['Which port does {tool} listen on?', 'What port did we give the {name}?'],
    ),
    'backup': dict(
        ask='User: How should I back up my {name}, and how would I restore it?',
        head=['Backups', 'Backup and restore of the {name}', 'Disaster recovery'],
        text=['The {name} is backed up nightly. The job runs `{cmd}` and uploads the result to object storage.',
              'A restore was rehearsed last month: it took 40 minutes end to end, most of it spent downloading.',
              'Retention: seven daily, four weekly and six monthly copies.'],
        q_req=['Can you remind me how the {name} is backed up?', 'What did we decide about restores for {tool}?'],
        q_fact=['How long did the {tool} restore rehearsal take?', 'How often is the {name} backed up?'],
    ),
}

PERSONAL_ASPECTS = {
    'advice': dict(
        head=['About the {name}', 'Your {name} question', '{name}: advice'],
        text=['User: I have been struggling with {problem}. What should I try?',
              'Assistant: {problem} usually comes from the routine rather than the equipment. I would try {fix} first, '
              'and keep everything else the same for two weeks so you can tell whether it helped.',
              'User: Thanks, I will try {fix}.'],
        q_req=['Can you remind me what you suggested for {problem}?', 'What did you tell me to do about {problem}?'],
        q_fact=['What fixes {problem}?'],
    ),
    'plan': dict(
        head=['Plan for the {name}', 'The {name} routine', 'Schedule'],
        text=['User: Can you help me plan the {name}? I can only do it {when}.',
              'Assistant: Sure. Here is a plan around {when}:\n\n- Week 1–2: {amount}, at {where}.\n'
              '- Week 3–4: the same, plus the {thing}.\n- After that, review and adjust.',
              'User: Great, I will stick to {when} at {where}.'],
        q_req=['Can you remind me of the plan we made for the {name}?', 'Remind me when I said I could do the {name}.'],
        q_fact=['How much was in the {name} plan for the first two weeks?', 'Where do I do the {name}?'],
    ),
    'choice': dict(
        head=['{thing} or {alt}', 'Choosing the {thing}', 'Gear'],
        text=['User: Should I get a {thing} or just use {alt}?',
              'Assistant: For what you described, the {thing} is worth it: {alt} works, but you would outgrow it '
              'within a season.',
              'User: OK, I ordered the {thing}.'],
        q_req=['What did we decide about the {thing} versus {alt}?', 'Can you remind me whether I went with {alt}?'],
        q_fact=['Did I buy the {thing} or use {alt}?'],
    ),
}

# Filler: what long chats and documents hold besides the answer.
FILLER = [
    'User: Thanks, that helps a lot. Can you also tell me how I should think about this going forward?\n\n'
    'Assistant: Of course. The main thing is to change one thing at a time and write down what you did, so that '
    'next time you can see what worked and what did not.',
    'User: I am not sure I understood the last part. Could you explain it again, more simply?\n\n'
    'Assistant: Sure. In short: keep what you have, measure it, and only then decide what to change.',
    'Notes for next time: we should write this up properly and share it with the rest of the team. Nothing here '
    'is final; some of it will change once we know more.',
    'Open questions: who owns this after the handover, and how do we know when it is done? We did not decide '
    'either today.',
    'User: Let me think about it and get back to you. I might have more questions later this week.\n\n'
    'Assistant: Take your time. When you come back, remind me where we left off and we can continue from there.',
    'Action items: follow up with the others, update the documentation, and set a reminder to check again in a '
    'month.',
]

# Sections about a subject that answer no question: passing mentions, in the words questions use.
ASIDES = [
    ['A note on {tool}: we might set up {alt} as well one day, but nobody has decided anything yet. The {name} '
     'works well enough for now, and nobody wants to touch {host} before the holidays.',
     'If we do, remind me to check how the current setup handles load first.'],
    ['Reminder about the {name}: the upgrade of {tool} is planned for next quarter. Someone should read the '
     'release notes, check `{file}` for settings that were renamed, and make sure the backups still run.'],
    ['The team asked how the {name} is monitored. Short answer: the usual dashboards and one alert on errors. '
     'Long answer: we should decide what we actually want to know about {tool} before adding more graphs.'],
    ['User: Quick one about {tool} — is it normal that it uses this much memory on {host}?\n\n'
     'Assistant: It can be. Most of it is cache; it is only a problem if the host starts swapping.'],
]

KINDS = [('design', 'architecture'), ('summary', 'session_summary'), ('exchange', 'journal')]


def fill(t, s):
    return t.format(**{k: ('' if v is None else v) for k, v in s.items()})


def generate(seed, n_memories):
    rng = random.Random(seed)
    start = datetime(2025, 3, 1, 9, 0)
    memories, questions = [], []
    used = set()  # (subject, aspect) pairs already written: each question has one right memory
    for m in range(n_memories):
        kind, mtype = KINDS[m % 3]
        personal = kind == 'exchange' and rng.random() < 0.5
        subjects = PERSONAL if personal else SUBJECTS
        aspects = PERSONAL_ASPECTS if personal else TECH_ASPECTS
        n_sections = rng.randint(4, 7)
        pairs = [(s, a) for s in subjects for a in aspects
                 if (s['key'], a) not in used and not (a == 'network' and s.get('port') is None)]
        rng.shuffle(pairs)
        # A memory is about two or three subjects, several aspects of each.
        main = rng.sample(subjects, min(len(subjects), rng.randint(2, 3)))
        chosen = [p for p in pairs if p[0] in main][:n_sections]
        name = f'{kind}-{m:03d}'
        title = {'design': 'Design notes: {}', 'summary': 'Session summary: {}', 'exchange': 'Chat: {}'}[kind]
        title = title.format(' and '.join(s['name'] for s in main))
        parts = [f'# {title}', rng.choice(FILLER)]
        for s, a in chosen:
            used.add((s['key'], a))
            asp = aspects[a]
            head = fill(rng.choice(asp['head']), s)
            paras = [fill(p, s) for p in asp['text']]
            if kind == 'exchange' and 'ask' in asp:
                # A chat: the user's request, then the assistant's answer.
                parts.append(fill(asp['ask'], s))
                paras[0] = 'Assistant: ' + paras[0]
            else:
                parts.append(f'## {head}')
            parts.extend(paras)
            if rng.random() < 0.6:
                parts.append(rng.choice(FILLER))
            if rng.random() < 0.5:
                aside = rng.choice(subjects if not personal else SUBJECTS)
                parts.append(f"## {fill(rng.choice(['Aside: {tool}', 'Misc', 'Also discussed', '{name}']), aside)}")
                parts.extend(fill(p, aside) for p in rng.choice(ASIDES))
            ordinal = len(questions)
            for style in ('request', 'factual'):
                pool = asp['q_req'] if style == 'request' else asp['q_fact']
                if rng.random() < (0.8 if style == 'request' else 0.5):
                    questions.append(dict(qid=f'q{ordinal}-{style}', query=fill(rng.choice(pool), s),
                                          style=style, gold=name))
        # Long memories: asides and chatter up to several KB.
        target = rng.randint(3500, 9000)
        while sum(len(p) for p in parts) < target:
            if rng.random() < 0.6:
                aside = rng.choice(SUBJECTS)
                parts.append(f"## {fill(rng.choice(['Aside: {tool}', 'Misc', 'Also discussed', '{name}']), aside)}")
                parts.extend(fill(p, aside) for p in rng.choice(ASIDES))
            else:
                parts.append(rng.choice(FILLER))
        parts.append('## Wrap-up')
        parts.append(rng.choice(FILLER))
        if kind == 'exchange':
            # A chat has no headings: its sections are turns, split by length only.
            parts = [p if not p.startswith('## ') else f'User: Next thing: {p[3:].lower()}.' for p in parts]
        body = '\n\n'.join(parts) + '\n'
        created = start + timedelta(days=int(m * 240 / n_memories), hours=rng.randint(0, 8))
        memories.append(dict(name=name, type=mtype, created=created, body=body))
    # The same wording asked of two memories has no one answer: keep the first.
    seen, unique = set(), []
    for q in questions:
        if q['query'] not in seen:
            seen.add(q['query'])
            unique.append(q)
    return memories, unique


# --- plain BM25, computed here ---------------------------------------------------------------

STOP = set('a an the and or of to in on for with at by from is are was were be it this that as'.split())


def stem(w):
    for suf in ('ing', 'ed', 'es', 's'):
        if len(w) > len(suf) + 2 and w.endswith(suf):
            return w[:-len(suf)]
    return w


def tokens(text):
    return [stem(w) for w in re.findall(r'[a-z0-9]+', text.lower()) if w not in STOP]


class BM25:
    def __init__(self, docs, k1=0.9, b=0.4):
        self.docs = [(key, tokens(t)) for key, t in docs]
        self.k1, self.b = k1, b
        self.avg = sum(len(t) for _, t in self.docs) / max(1, len(self.docs))
        self.df = {}
        for _, t in self.docs:
            for w in set(t):
                self.df[w] = self.df.get(w, 0) + 1
        self.tf = [{w: t.count(w) for w in set(t)} for _, t in self.docs]

    def rank(self, query):
        n, q = len(self.docs), set(tokens(query))
        best = {}
        for (key, t), tf in zip(self.docs, self.tf):
            s = 0.0
            for w in q:
                if w in tf:
                    idf = math.log(1 + (n - self.df[w] + 0.5) / (self.df[w] + 0.5))
                    s += idf * tf[w] * (self.k1 + 1) / (tf[w] + self.k1 * (1 - self.b + self.b * len(t) / self.avg))
            if s > best.get(key, 0.0):
                best[key] = s
        return [k for k, _ in sorted(best.items(), key=lambda kv: -kv[1])]


def sections(body):
    return [p for p in re.split(r'\n(?=#{1,6} )', body) if p.strip()]


def score(ranked, gold):
    r10 = 1.0 if gold in ranked[:10] else 0.0
    mrr = next((1 / (i + 1) for i, d in enumerate(ranked) if d == gold), 0.0)
    return r10, mrr


def main():
    args = sys.argv[1:]
    extra = []
    if '--' in args:
        extra = args[args.index('--') + 1:]
        args = args[:args.index('--')]
    if not args:
        sys.exit(__doc__)
    binary = os.path.abspath(args[0])
    opt = {a: args[i + 1] for i, a in enumerate(args[:-1]) if a.startswith('--')}
    seed, n = int(opt.get('--seed', 1)), int(opt.get('--memories', 80))
    memories, questions = generate(seed, n)
    vault = opt.get('--keep') or tempfile.mkdtemp(prefix='long-memories-')
    os.makedirs(vault, exist_ok=True)
    if not os.path.isdir(os.path.join(vault, '.memories')):
        subprocess.run([binary, 'init'], cwd=vault, check=True, capture_output=True)
    for m in memories:
        with open(os.path.join(vault, '.memories', m['name'] + '.md'), 'w') as f:
            f.write(f"---\ntype: {m['type']}\ncreated_at: {m['created'].isoformat()}Z\n---\n{m['body']}")
    subprocess.run([binary] + extra + ['reindex'], cwd=vault, check=True, capture_output=True)
    now = max(m['created'] for m in memories) + timedelta(days=1)
    env = dict(os.environ, MEMLANE_NOW=now.isoformat() + 'Z')
    whole = BM25([(m['name'], m['body']) for m in memories])
    best_section = BM25([(m['name'], s) for m in memories for s in sections(m['body'])])
    systems = ['memlane', 'bm25-memory', 'bm25-section']
    acc = {(s, st): [0.0, 0.0, 0] for s in systems for st in ('all', 'request', 'factual')}
    runs = open(opt['--runs'], 'w') if '--runs' in opt else None
    for q in questions:
        cmd = [binary] + extra + ['search', q['query'], '--limit', '10', '--json', '--no-touch']
        if opt.get('--explain') == q['qid']:
            print(subprocess.run([binary] + extra + ['search', q['query'], '--limit', '10', '--explain', '--no-touch'],
                                 cwd=vault, capture_output=True, text=True, env=env).stdout)
        r = subprocess.run(cmd, cwd=vault, capture_output=True, text=True, env=env)
        try:
            ours = [h['name'] for h in json.loads(r.stdout).get('results', [])]
        except ValueError:
            ours = []
        ranked = {'memlane': ours, 'bm25-memory': whole.rank(q['query']),
                  'bm25-section': best_section.rank(q['query'])}
        for s in systems:
            r10, mrr = score(ranked[s], q['gold'])
            for st in ('all', q['style']):
                a = acc[(s, st)]
                a[0] += r10; a[1] += mrr; a[2] += 1
        if runs:
            runs.write(json.dumps({'qid': q['qid'], 'query': q['query'], 'style': q['style'], 'gold': q['gold'],
                                   'memlane': ours, 'bm25': ranked['bm25-memory'][:10]}) + '\n')
    if '--keep' not in opt:
        shutil.rmtree(vault, ignore_errors=True)
    kb = sum(len(m['body']) for m in memories) / len(memories) / 1024
    print(f'long-memories seed {seed}: {len(memories)} memories (mean {kb:.1f} KB), {len(questions)} questions')
    for s in systems:
        row = '  '.join(f"{st} R@10 {100 * acc[(s, st)][0] / max(1, acc[(s, st)][2]):5.1f} "
                        f"MRR {100 * acc[(s, st)][1] / max(1, acc[(s, st)][2]):5.1f} (n={acc[(s, st)][2]})"
                        for st in ('all', 'request', 'factual'))
        print(f'  {s:13} {row}')


if __name__ == '__main__':
    main()
