# One image for every service; docker-compose.yml picks the entry point per container.
FROM node:20-bookworm-slim
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium ca-certificates \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund || npm install --no-audit --no-fund
COPY . .
RUN npm run build:web
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080
USER node
EXPOSE 8080
CMD ["node", "--import", "tsx", "services/main.ts"]
