# frozen_string_literal: true

module CounterCrdt
  VERSION = "0.1.0"
end
